// `audience drift`: where live accounts differ from the states of the programs that manage them, for a whole
// fleet; `audience drift merge`: one report from the JSON of several shards.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Option, type Command } from "commander";
import { accountResolver, inShard, readAccountsFile, type AccountsFile, type AccountTarget } from "./accounts.ts";
import { FORMATS, render, type Format } from "./format.ts";
import { IgnoreRules } from "./ignore.ts";
import { progressLine, type DriftProgress } from "./progress.ts";
import { accountLabel, DEFAULT_FAIL_ON, exitCode, FAILURES, makeReport, mergeReports, shardSetProblem, type AccountReport, type Failure, type Report } from "./report.ts";
import { accountWork, limiter, pool, scanAccount, startReads, type AccountWork } from "./scan.ts";
import { expandStates, InputError, loadState, type LoadedState, type StateResource } from "./states.ts";
import { wantsColor } from "../terminal.ts";
import { usageExitStatus } from "../usage.ts";

export { InputError } from "./states.ts";
export type { Report } from "./report.ts";

/** Accounts read at once unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 4;

/** Beside each state, the rules a team keeps for members it accepts changing by hand. */
export const IGNORE_FILE = ".audience-drift-ignore";

export interface DriftOptions {
  /** State files or globs. */
  states: string[];
  accounts?: AccountsFile;
  concurrency?: number;
  /** `[index, count]`, index 1-based. */
  shard?: [number, number];
  /** An ignore file; `.audience-drift-ignore` beside each state otherwise. */
  ignore?: string;
  /** Opens the states' secrets and secure config; PULUMI_CONFIG_PASSPHRASE by default. */
  passphrase?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Told each time a state is read or an account compared. */
  onProgress?: (progress: DriftProgress) => void;
}

/** The drift report of the given states' accounts. Bad input throws `InputError`; unreadable accounts are reported. */
export async function driftReport(options: DriftOptions): Promise<Report> {
  const env = options.env ?? process.env;
  const passphrase = options.passphrase ?? (env.PULUMI_CONFIG_PASSPHRASE || undefined);
  const files = await expandStates(options.states);
  if (files.length === 0) throw new InputError("give at least one --state");
  // The states are read one after the other; each account starts its reads (`--concurrency` accounts at once) as
  // soon as a state names it, and is compared once every state is read (another state may manage more of it).
  const resolver = accountResolver(options.accounts, passphrase, env);
  const accountsAtOnce = limiter(options.concurrency ?? DEFAULT_CONCURRENCY);
  const timeout = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  const targetOfState = new Map<string, (resource: StateResource) => AccountTarget>();
  const scans = new Map<AccountTarget, Promise<AccountReport | undefined>>();
  let failed = false;
  let settle!: (ready: { work: Map<AccountTarget, AccountWork>; rules: IgnoreRules } | undefined) => void;
  const ready = new Promise<{ work: Map<AccountTarget, AccountWork>; rules: IgnoreRules } | undefined>((resolve) => (settle = resolve));
  const scan = (target: AccountTarget) => accountsAtOnce(async () => {
    const reads = failed ? undefined : startReads(target, timeout);
    const all = await ready;
    if (!all) return void (await reads?.client.close()); // bad input: nothing is reported
    return scanAccount(all.work.get(target)!, { rules: all.rules, ...timeout }, reads);
  });
  const states: LoadedState[] = [];
  const progress: DriftProgress = { states: files.length, statesRead: 0, accounts: 0, accountsCompared: 0 };
  const told = () => options.onProgress?.({ ...progress });
  const compared = (scanned: Promise<AccountReport | undefined>) => scanned.finally(() => {
    progress.accountsCompared++;
    told();
  });
  told();
  try {
    for (const file of files) {
      const state = await loadState(file, passphrase);
      states.push(state);
      progress.statesRead++;
      const { targets, targetOf } = await resolver.add(state);
      targetOfState.set(file, targetOf);
      for (const target of targets) {
        if (scans.has(target) || (options.shard && !inShard(target, ...options.shard))) continue;
        scans.set(target, compared(scan(target)));
        progress.accounts++;
      }
      told();
    }
    let rules = new IgnoreRules();
    const ignoreFiles = options.ignore !== undefined ? [options.ignore] : [...new Set(files.map((f) => join(dirname(f), IGNORE_FILE)))].filter((f) => existsSync(f));
    for (const file of ignoreFiles) rules = rules.concat(await IgnoreRules.read(file));
    const targetOf = (r: StateResource): AccountTarget => targetOfState.get(r.file)!(r);
    settle({ work: new Map(accountWork(states.flatMap((s) => s.resources), targetOf, scans.keys()).map((w) => [w.target, w])), rules });
  } catch (error) {
    failed = true;
    settle(undefined);
    await Promise.all(scans.values());
    throw error;
  }
  const accounts = (await Promise.all(scans.values())).filter((a) => a !== undefined);
  // A shard's report says which shard it is, so that `merge` can tell a missing or repeated one.
  return options.shard ? { shard: options.shard.join("/"), ...makeReport(accounts) } : makeReport(accounts);
}

function parseShard(text: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(count >= 1 && index >= 1 && index <= count)) throw new InputError(`--shard "${text}": expected I/N with 1 <= I <= N (e.g. 2/8)`);
  return [index, count];
}

function parseFailOn(text: string): Failure[] {
  const names = text.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(FAILURES as readonly string[]).includes(n));
  if (unknown.length > 0 || names.length === 0) throw new InputError(`--fail-on "${text}": allowed are ${FAILURES.join(", ")} (comma-separated)`);
  return names as Failure[];
}

function positive(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`${flag} "${text}": expected a whole number of at least 1`);
  return n;
}

function output(report: Report, format: Format): void {
  const color = wantsColor(Boolean(process.stdout.isTTY));
  process.stdout.write(render(report, format, { color, workspace: process.env.GITHUB_WORKSPACE ?? process.cwd() }));
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface Flags {
  state?: string[];
  accounts?: string;
  concurrency: string;
  shard?: string;
  format: Format;
  json?: boolean;
  failOn?: string;
  ignore?: string;
  timeout?: string;
}

export function register(program: Command): void {
  // 2 says "found something" here: a command line given wrong exits 1, as any other bad input.
  // `merge` has a --format and --fail-on of its own: after it, they are its, not the scan's. Commander keeps an
  // option to the command it follows only where the commands above do so too.
  program.enablePositionalOptions();
  const drift = usageExitStatus(program.command("drift"), 1)
    .enablePositionalOptions()
    .argument("[states...]", "state files (same as --state)")
    .option("--state <file>", "a state of `audience run` (.audience/state/<stack>.json) or a `pulumi stack export` document; repeatable, globs allowed", collect)
    .option("--accounts <file>", 'JSON map of account name -> {"baseUrl", "apiKeyEnv" (or "apiKey")}')
    .option("--concurrency <n>", "accounts read at once", String(DEFAULT_CONCURRENCY))
    .option("--shard <i/n>", "read only the accounts of shard I of N (CI matrix); merge the JSON with `audience drift merge`")
    .addOption(new Option("--format <format>", "report format").choices(FORMATS).default("text"))
    .option("--json", "same as --format json")
    .option("--fail-on <statuses>", `exit 2 when any of these is found (${FAILURES.join(",")})`, DEFAULT_FAIL_ON.join(","))
    .option("--ignore <file>", `rules for members changed by hand on purpose (default ${IGNORE_FILE} beside each state)`)
    .option("--timeout <seconds>", "time one request may take")
    .addHelpText("after", "\nExit status: 0 nothing to report, 2 something matched --fail-on, 1 bad input.\nSecrets and secure config open with PULUMI_CONFIG_PASSPHRASE; API keys never appear in the report.")
    .action(async (positional: string[], flags: Flags) => {
      // The report goes to stdout; the progress to stderr, so that it shows while the report goes to a file.
      const progress = progressLine(process.stderr, wantsColor(Boolean(process.stderr.isTTY)));
      try {
        const failOn = parseFailOn(flags.failOn ?? DEFAULT_FAIL_ON.join(","));
        const report = await driftReport({
          states: [...positional, ...(flags.state ?? [])],
          concurrency: positive("--concurrency", flags.concurrency),
          ...(flags.accounts !== undefined ? { accounts: await readAccountsFile(flags.accounts) } : {}),
          ...(flags.shard !== undefined ? { shard: parseShard(flags.shard) } : {}),
          ...(flags.ignore !== undefined ? { ignore: flags.ignore } : {}),
          ...(flags.timeout !== undefined ? { timeoutMs: positive("--timeout", flags.timeout) * 1000 } : {}),
          onProgress: progress.show,
        }).finally(progress.clear);
        output(report, flags.json ? "json" : flags.format);
        process.exitCode = exitCode(report, failOn);
      } catch (error) {
        process.stderr.write(`audience drift: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });

  drift
    .command("merge")
    .description("merge the JSON reports of shards 1..N of one run into one report (exit 1 when one is missing or repeated)")
    .argument("<reports...>", "JSON reports of `audience drift --json --shard I/N`, one per shard")
    .addOption(new Option("--format <format>", "report format").choices(FORMATS).default("json"))
    .option("--fail-on <statuses>", `exit 2 when any of these is found (${FAILURES.join(",")})`, DEFAULT_FAIL_ON.join(","))
    .action(async (files: string[], flags: { format: Format; failOn: string }) => {
      try {
        const failOn = parseFailOn(flags.failOn);
        const reports = await pool(files, 8, async (file) => {
          let doc: unknown;
          try {
            doc = JSON.parse(await readFile(file, "utf8"));
          } catch (error) {
            throw new InputError(`${file}: ${error instanceof SyntaxError ? "not JSON" : (error as Error).message}`);
          }
          if (typeof doc !== "object" || doc === null || !Array.isArray((doc as Report).accounts)) throw new InputError(`${file}: not a JSON report of \`audience drift --json\``);
          return doc as Report;
        });
        // Exactly shards 1..N of one run, each once: a missing one would pass for a fleet without its accounts.
        const problem = shardSetProblem(reports, files);
        if (problem !== undefined) throw new InputError(problem);
        // Each account is in one shard: one in two reports (shards of two runs of different states) would count twice.
        const seenIn = new Map<string, string>();
        reports.forEach((report, i) => {
          for (const account of report.accounts) {
            const key = JSON.stringify([account.account, account.baseUrl, account.stacks ?? []]);
            const earlier = seenIn.get(key);
            if (earlier !== undefined) throw new InputError(`account ${accountLabel(account)} is in both ${earlier} and ${files[i]}: an account falls in one shard, so these are not the shards of one run`);
            seenIn.set(key, files[i]!);
          }
        });
        const merged = mergeReports(reports);
        output(merged, flags.format);
        process.exitCode = exitCode(merged, failOn);
      } catch (error) {
        process.stderr.write(`audience drift merge: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
