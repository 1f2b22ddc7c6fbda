// The drift report: what was found per account, its summary, merging shards, and the exit code.
import { urnOwner } from "../../engine/urn.ts";

/** `contested`: several given stacks manage it (one id), each of which may delete or change it under the others. */
export const STATUSES = ["in_sync", "drifted", "missing", "error", "unknown", "contested", "unmanaged"] as const;
export type Status = (typeof STATUSES)[number];

/** What `--fail-on` may name. */
export const FAILURES = ["drifted", "missing", "unmanaged", "error", "unknown", "contested"] as const;
export type Failure = (typeof FAILURES)[number];
export const DEFAULT_FAIL_ON: readonly Failure[] = ["drifted", "missing", "unmanaged", "error", "contested"];

export interface Change {
  /** camelCase member path as the program writes it: `options.host`, `population.cohortIds`. */
  path: string;
  expected: unknown;
  actual: unknown;
}

export interface ResourceReport {
  /** Absent for unmanaged and contested resources (a contested one's are in `claims`). */
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
  /** A contested resource's claims: each stack's resource that manages it, with what its comparison found. */
  claims?: Claim[];
}

/** One stack's resource that manages a contested resource, as its state's comparison found it. */
export interface Claim {
  /** `project/stack`. */
  stack: string;
  urn: string;
  name: string;
  status: Exclude<Status, "contested" | "unmanaged">;
  changes: readonly Change[];
  reason?: string;
  source?: ResourceReport["source"];
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
  /** managed / (managed + unmanaged); when nothing was found, 1, or null when an account could not be read. */
  coverage: number | null;
  /** Accounts that could not be read. */
  failed_accounts: number;
}

export interface Report {
  /** `I/N` in the report of `--shard I/N`: what `merge` checks the set of shards by. */
  shard?: string;
  accounts: AccountReport[];
  summary: Summary;
}

export function summarize(accounts: AccountReport[]): Summary {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const account of accounts) for (const r of account.resources) counts[r.status] += 1;
  const managed = STATUSES.filter((s) => s !== "unmanaged").reduce((n, s) => n + counts[s], 0);
  const seen = managed + counts.unmanaged;
  const failed = accounts.filter((a) => a.error !== undefined).length;
  // Nothing seen where an account was not read is not everything managed: what it holds is not known.
  const coverage = seen > 0 ? Math.round((managed / seen) * 10_000) / 10_000 : failed > 0 ? null : 1;
  return { ...counts, coverage, failed_accounts: failed };
}

/** How a report names an account: its name, and the stacks in it (the default account of each stack is `default`). */
export function accountLabel(account: AccountReport): string {
  return account.stacks?.length ? `${account.account} of ${account.stacks.join(", ")}` : account.account;
}

/** Accounts in a stable order, so a merge of shards equals the unsharded report; each resource in it once. */
export function makeReport(accounts: AccountReport[]): Report {
  const sorted = [...accounts].sort((a, b) => a.account.localeCompare(b.account) || a.baseUrl.localeCompare(b.baseUrl) || String(a.stacks).localeCompare(String(b.stacks)));
  const joined = joinClaims(sorted);
  return { accounts: joined, summary: summarize(joined) };
}

function claimsOf(resource: ResourceReport): Claim[] {
  if (resource.claims) return resource.claims;
  const { urn = "", name, status, changes, reason, source } = resource;
  const claim: Claim = { stack: urnOwner(urn), urn, name, status: status as Claim["status"], changes };
  if (reason !== undefined) claim.reason = reason;
  if (source !== undefined) claim.source = source;
  return [claim];
}

/**
 * Each managed resource once: one that several states record (one id, in one account or in two reached by two keys
 * of one account, in one report or in shards being merged) becomes one contested resource, where it was first found,
 * with each stack's claim; the same resource of the same stack (its state given twice) is one claim.
 */
function joinClaims(accounts: AccountReport[]): AccountReport[] {
  const keyOf = (r: ResourceReport) => `${r.type}\0${r.id}`;
  // By id alone on the way (a fleet's every resource passes here): the key is made only for the few found twice.
  const byId = new Map<string, ResourceReport>();
  /** Resources found more than once, or contested already (a shard's), by key, the first found first: the few to join. */
  const repeated = new Map<string, ResourceReport[]>();
  for (const account of accounts) {
    for (const r of account.resources) {
      if (r.status === "unmanaged") continue;
      const seen = byId.get(r.id);
      if (seen === undefined) {
        byId.set(r.id, r);
        if (r.claims) repeated.set(keyOf(r), [r]);
      } else if (seen.type === r.type) {
        const key = keyOf(r);
        const all = repeated.get(key);
        if (all) all.push(r);
        else repeated.set(key, [seen, r]);
      }
    }
  }
  if (repeated.size === 0) return accounts;
  const joined = new Map<string, ResourceReport>();
  for (const [key, found] of repeated) {
    const byUrn = new Map(found.flatMap(claimsOf).map((c) => [c.urn, c]));
    const claims = [...byUrn.values()].sort((a, b) => a.stack.localeCompare(b.stack) || a.urn.localeCompare(b.urn));
    const { type, id } = found[0]!;
    if (claims.length === 1) {
      const { stack: _stack, ...one } = claims[0]!;
      joined.set(key, { ...one, type, id });
      continue;
    }
    const stacks = [...new Set(claims.map((c) => c.stack))];
    const by = stacks.length > 1 ? `${stacks.length} stacks: ${stacks.join(", ")}` : `${claims.length} resources of ${stacks[0]}`;
    joined.set(key, { type, name: claims[0]!.name, id, status: "contested", changes: [], reason: `managed by ${by}`, claims });
  }
  return accounts.map((account) => {
    if (!account.resources.some((r) => r.status !== "unmanaged" && repeated.has(keyOf(r)))) return account;
    const resources = account.resources.flatMap((r) => {
      if (r.status === "unmanaged") return [r];
      const key = keyOf(r);
      if (!repeated.has(key)) return [r];
      return repeated.get(key)![0] === r ? [joined.get(key)!] : [];
    });
    return { ...account, resources };
  });
}

/** Why the reports of a sharded run, in `files`, are not one run's shards 1..N each once; undefined when they are. */
export function shardSetProblem(reports: readonly Pick<Report, "shard">[], files: readonly string[]): string | undefined {
  const shards = reports.map((r) => /^(\d+)\/(\d+)$/.exec(typeof r.shard === "string" ? r.shard : ""));
  const unsharded = shards.findIndex((m) => m === null || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]));
  if (unsharded >= 0) return `${files[unsharded]} is not the report of a shard (no "shard": "I/N" in it): merge joins the reports of \`audience drift --shard I/N --json\``;
  const count = Number(shards[0]![2]);
  const other = shards.findIndex((m) => Number(m![2]) !== count);
  if (other >= 0) return `${files[0]} is shard ${reports[0]!.shard} but ${files[other]} is shard ${reports[other]!.shard}: give the reports of one run's shards`;
  const filesOf = new Map<number, string[]>();
  shards.forEach((m, i) => filesOf.set(Number(m![1]), [...(filesOf.get(Number(m![1])) ?? []), files[i]!]));
  const problems: string[] = [];
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !filesOf.has(index));
  if (missing.length > 0) problems.push(`shard${missing.length === 1 ? "" : "s"} ${missing.map((index) => `${index}/${count}`).join(", ")} missing`);
  for (const [index, given] of [...filesOf].sort(([a], [b]) => a - b)) {
    if (given.length > 1) problems.push(`shard ${index}/${count} given ${given.length} times (${given.join(", ")})`);
  }
  return problems.length > 0 ? `${problems.join("; ")}: give each of shards 1/${count} to ${count}/${count} once` : undefined;
}

/** One report from the JSON reports of several shards. */
export function mergeReports(reports: Report[]): Report {
  return makeReport(reports.flatMap((r) => r.accounts));
}

/**
 * 2 when something the team asked to fail on was found (an unreadable account counts as `error`; what a contested
 * resource's stacks found, as theirs), else 0.
 */
export function exitCode(report: Report, failOn: readonly Failure[]): 0 | 2 {
  const failing = new Set<string>(failOn);
  const fails = (r: ResourceReport) => failing.has(r.status) || (r.claims?.some((c) => failing.has(c.status)) ?? false);
  const found = report.accounts.some((a) => (a.error !== undefined && failing.has("error")) || a.resources.some(fails));
  return found ? 2 : 0;
}
