// What each account has used, by metric (/accounts/current/usage).
import type { RecordStore } from "../store.ts";

export class Usage {
  readonly #store: RecordStore;

  constructor(store: RecordStore) {
    this.#store = store;
  }

  add(accountId: string, metric: string, n = 1): void {
    const usage = this.#store.get<Record<string, number>>("usage", accountId) ?? {};
    this.#store.set("usage", accountId, { ...usage, [metric]: (usage[metric] ?? 0) + n });
  }

  get(accountId: string): Record<string, number> {
    return { ...(this.#store.get<Record<string, number>>("usage", accountId) ?? {}) };
  }
}
