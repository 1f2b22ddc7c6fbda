// The accounts of the service and their hierarchy.
import { now } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Account } from "../model.ts";
import type { RecordStore } from "../store.ts";

/** The most resources of one collection an account holds, for collections its quotas do not name. */
export const DEFAULT_QUOTA = 1000;

export class Accounts {
  readonly #store: RecordStore;
  readonly #onNew: ((account: Account) => void) | undefined;

  /** `onNew` gives a new account what it starts with, in the transaction that creates it. */
  constructor(store: RecordStore, onNew?: (account: Account) => void) {
    this.#store = store;
    this.#onNew = onNew;
  }

  get(id: string): Account | undefined {
    return this.#store.get<Account>("account", id);
  }

  all(): Account[] {
    return this.#store.values<Account>("account");
  }

  /** The account and every account below it in the hierarchy. */
  isSelfOrDescendant(ancestorId: string, accountId: string): boolean {
    for (let a = this.get(accountId); a; a = a.parent_id ? this.get(a.parent_id) : undefined) {
      if (a.id === ancestorId) return true;
    }
    return false;
  }

  create(input: { name: string; parent_id?: string | null; quotas?: Record<string, number>; early_access?: string[];
    owner_email?: string; id?: string }): Account {
    const id = input.id ?? newId();
    const account: Account = {
      id, name: input.name, parent_id: input.parent_id ?? null,
      owner_email: input.owner_email ?? `owner+${id.slice(0, 8)}@example.com`,
      quotas: input.quotas ?? {}, early_access: input.early_access ?? [], identity_graph: null,
      contract_started_at: now(), created_at: now(),
    };
    this.#store.transaction(() => {
      this.#store.set("account", id, account);
      this.#onNew?.(account);
    });
    return account;
  }
}
