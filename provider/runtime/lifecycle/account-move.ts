// A resource moved to another account: the service cannot move one, so it is created there and deleted from the
// first. Told apart from the same account reached another way (a new key, a proxy's URL) by the id each key's
// account answers; when either side cannot say (a rotated key the service now refuses), the resource stays.
import { accountIdOf } from "./config-check.ts";
import type { PathChange } from "./diff.ts";
import type { Credentials, Settings } from "./settings.ts";

/** Whether two sets of credentials reach two different accounts, as far as the service says. */
export async function differentAccounts(from: Partial<Credentials> | undefined, to: Partial<Credentials> | undefined): Promise<boolean> {
  if (from?.apiKey === undefined || from.baseUrl === undefined || to?.apiKey === undefined || to.baseUrl === undefined) return false;
  if (from.apiKey === to.apiKey && from.baseUrl === to.baseUrl) return false;
  const [a, b] = await Promise.all([accountIdOf(from as Credentials), accountIdOf(to as Credentials)]);
  return a !== undefined && b !== undefined && a !== b;
}

/** The credentials of an `account` control's name (the default account when none). */
function credentialsNamed(settings: Settings, account: unknown): Partial<Credentials> | undefined {
  return account === undefined ? settings.default : typeof account === "string" ? settings.accounts[account] : undefined;
}

/**
 * A compared change whose `account` control names another account made a replacement (`compare` takes every
 * control change as an update in place).
 */
export async function withAccountMove<T extends { changed: string[]; replaces: string[]; details: PathChange[] }>(settings: Settings, olds: { account?: unknown }, news: { account?: unknown }, compared: T): Promise<T> {
  if (!compared.changed.includes("account")) return compared;
  if (!(await differentAccounts(credentialsNamed(settings, olds.account), credentialsNamed(settings, news.account)))) return compared;
  return {
    ...compared,
    replaces: [...new Set([...compared.replaces, "account"])],
    details: compared.details.map((d) => (d.path === "account" ? { ...d, replace: true } : d)),
  };
}
