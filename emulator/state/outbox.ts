// The mail the service sent (build notices to account owners), oldest first.
import { now } from "../clock.ts";
import { newId } from "../ids.ts";
import type { OutboxMessage } from "../model.ts";
import type { RecordStore } from "../store.ts";

export class Outbox {
  readonly #store: RecordStore;

  constructor(store: RecordStore) {
    this.#store = store;
  }

  send(message: Omit<OutboxMessage, "id" | "sent_at">): void {
    const sent_at = now();
    const key = `${Date.now().toString().padStart(15, "0")}-${newId()}`;
    this.#store.set("outbox", key, { id: newId(), sent_at, ...message });
  }

  all(): OutboxMessage[] {
    return this.#store.entries<OutboxMessage>("outbox").sort(([a], [b]) => a.localeCompare(b)).map(([, m]) => m);
  }
}
