// The emulated service's state, all kept in the durable record store: the resources (state/resources.ts, which
// this class is), and beside them the accounts, their keys, usage, the outbox and the settings, each kept by its own
// module in state/. HTTP concerns live in routes/ and the family modules. The state reads what it needs of a
// collection's family through `KeptFamilies` (model.ts): it knows no family module and no registry.
import type { Account, KeptFamilies, OutboxMessage } from "./model.ts";
import { Accounts } from "./state/accounts.ts";
import { Keys, newApiKey } from "./state/keys.ts";
import { Outbox } from "./state/outbox.ts";
import { Resources } from "./state/resources.ts";
import { Settings } from "./state/settings.ts";
import { Usage } from "./state/usage.ts";
import type { RecordStore } from "./store.ts";

export type { Account, BuildState, Doc, OutboxMessage, StoredResource } from "./model.ts";
export { now } from "./clock.ts";
export { DEFAULT_QUOTA } from "./state/accounts.ts";

export interface StateOptions {
  /** What a new account starts with (each family's seed), in the transaction that creates it. */
  onNewAccount?(state: ServiceState, account: Account): void;
}

export class ServiceState extends Resources {
  readonly #settings: Settings;
  readonly #accounts: Accounts;
  readonly #keys: Keys;
  readonly #usage: Usage;
  readonly #outbox: Outbox;

  constructor(store: RecordStore, families: KeptFamilies, options: StateOptions = {}) {
    super(store, families);
    this.#settings = new Settings(store);
    this.#accounts = new Accounts(store, options.onNewAccount && ((account) => options.onNewAccount?.(this, account)));
    this.#keys = new Keys(store, this.#settings);
    this.#usage = new Usage(store);
    this.#outbox = new Outbox(store);
  }

  // Accounts and keys

  account(id: string): Account | undefined {
    return this.#accounts.get(id);
  }

  accounts(): Account[] {
    return this.#accounts.all();
  }

  /** The account and every account below it in the hierarchy. */
  isSelfOrDescendant(ancestorId: string, accountId: string): boolean {
    return this.#accounts.isSelfOrDescendant(ancestorId, accountId);
  }

  createAccount(input: Parameters<Accounts["create"]>[0]): Account {
    return this.#accounts.create(input);
  }

  /** Adds a key to an account; only its salted hash is stored. */
  addKey(accountId: string, key: string = newApiKey(), expiresAt: string | null = null): string {
    return this.#keys.add(accountId, key, expiresAt);
  }

  keyRecord(key: string): { account_id: string; expires_at: string | null } | undefined {
    return this.#keys.record(key);
  }

  // Usage, outbox and settings

  addUsage(accountId: string, metric: string, n = 1): void {
    this.#usage.add(accountId, metric, n);
  }

  usage(accountId: string): Record<string, number> {
    return this.#usage.get(accountId);
  }

  send(message: Omit<OutboxMessage, "id" | "sent_at">): void {
    this.#outbox.send(message);
  }

  outbox(): OutboxMessage[] {
    return this.#outbox.all();
  }

  setting<T>(name: string): T | undefined {
    return this.#settings.get<T>(name);
  }

  setSetting(name: string, value: unknown): void {
    this.#settings.set(name, value);
  }
}
