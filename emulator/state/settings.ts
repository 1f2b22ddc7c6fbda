// The service's settings: how builds progress, the salt of key hashes.
import type { RecordStore } from "../store.ts";

export class Settings {
  readonly #store: RecordStore;

  constructor(store: RecordStore) {
    this.#store = store;
  }

  get<T>(name: string): T | undefined {
    return this.#store.get<T>("setting", name);
  }

  set(name: string, value: unknown): void {
    this.#store.set("setting", name, value);
  }
}
