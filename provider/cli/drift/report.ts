// The drift report: what was found per account, its summary, merging shards, and the exit code.

export const STATUSES = ["in_sync", "drifted", "missing", "error", "unknown", "unmanaged"] as const;
export type Status = (typeof STATUSES)[number];

/** What `--fail-on` may name. */
export const FAILURES = ["drifted", "missing", "unmanaged", "error", "unknown"] as const;
export type Failure = (typeof FAILURES)[number];
export const DEFAULT_FAIL_ON: readonly Failure[] = ["drifted", "missing", "unmanaged", "error"];

export interface Change {
  /** camelCase member path as the program writes it: `options.host`, `population.cohortIds`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

export interface ResourceReport {
  /** Absent for unmanaged resources. */
  urn?: string;
  /** Class name: Scope. */
  type: string;
  name: string;
  id: string;
  status: Status;
  changes: readonly Change[];
  reason?: string;
  /** `file:line` of the program line declaring it, when the state records it. */
  source?: { file: string; line: number; column: number };
}

export interface AccountReport {
  account: string;
  baseUrl: string;
  /** The stacks whose resources are in it (`project/stack`); absent from reports written before it was kept. */
  stacks?: string[];
  /** The account could not be read (expired key, unreachable, ...): nothing else is known about it. */
  error?: string;
  resources: ResourceReport[];
}

export interface Summary extends Record<Status, number> {
  /** managed / (managed + unmanaged); 1 when nothing was found. */
  coverage: number;
  /** Accounts that could not be read. */
  failed_accounts: number;
}

export interface Report {
  accounts: AccountReport[];
  summary: Summary;
}

export function summarize(accounts: AccountReport[]): Summary {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const account of accounts) for (const r of account.resources) counts[r.status] += 1;
  const managed = STATUSES.filter((s) => s !== "unmanaged").reduce((n, s) => n + counts[s], 0);
  const seen = managed + counts.unmanaged;
  return { ...counts, coverage: seen === 0 ? 1 : Math.round((managed / seen) * 10_000) / 10_000, failed_accounts: accounts.filter((a) => a.error !== undefined).length };
}

/** How a report names an account: its name, and the stacks in it (the default account of each stack is `default`). */
export function accountLabel(account: AccountReport): string {
  return account.stacks?.length ? `${account.account} of ${account.stacks.join(", ")}` : account.account;
}

/** Accounts in a stable order, so a merge of shards equals the unsharded report. */
export function makeReport(accounts: AccountReport[]): Report {
  const sorted = [...accounts].sort((a, b) => a.account.localeCompare(b.account) || a.baseUrl.localeCompare(b.baseUrl) || String(a.stacks).localeCompare(String(b.stacks)));
  return { accounts: sorted, summary: summarize(sorted) };
}

/** One report from the JSON reports of several shards. */
export function mergeReports(reports: Report[]): Report {
  return makeReport(reports.flatMap((r) => r.accounts));
}

/** 2 when something the team asked to fail on was found (an unreadable account counts as `error`), else 0. */
export function exitCode(report: Report, failOn: readonly Failure[]): 0 | 2 {
  const failing = new Set<string>(failOn);
  const found = report.accounts.some((a) => (a.error !== undefined && failing.has("error")) || a.resources.some((r) => failing.has(r.status)));
  return found ? 2 : 0;
}
