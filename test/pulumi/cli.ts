// The real `pulumi` CLI, as `npm run pulumi:install` builds it, run the way Pulumi's own providertest runs it:
// PULUMI_HOME and a file backend in a temporary folder, a passphrase, no update checks, no plugin downloads, no
// prompts. Programs are installed from `npm pack` (test/engine/installed.ts), as a user installs this package.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll } from "vitest";
import { installedProgram, removeInstalledPrograms } from "../engine/installed.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** Pulumi.yaml's section that has the CLI run the plugin of this package as the program installed it. */
export const PLUGIN_IN_PACKAGE = "plugins:\n  providers:\n    - name: audience\n      path: ./node_modules/pulumi-audience\n";

/** The folder holding `pulumi` and its language host, or why there is none. */
export interface PulumiCli {
  readonly dir?: string;
  readonly reason?: string;
}

let found: PulumiCli | undefined;

/**
 * Finds the CLI `npm run pulumi:install` built (well under a second once built; a first build takes minutes, which
 * `.ci/run` does before the tests). Without Go on the machine the real-CLI tests skip, saying so, unless
 * AUDIENCE_REQUIRE_PULUMI=1 (set by CI), where they fail.
 */
export function pulumiCli(): PulumiCli {
  if (found) return found;
  const install = spawnSync(process.execPath, [join(ROOT, "scripts", "pulumi-install.ts")], { cwd: ROOT, encoding: "utf8", env: process.env });
  const lines = install.stdout.trim().split("\n");
  found = install.status === 0 ? { dir: lines.at(-1)! } : { reason: install.stderr.trim().split("\n").at(-1) ?? `pulumi:install exited ${install.status}` };
  if (!found.dir && process.env["AUDIENCE_REQUIRE_PULUMI"] === "1") throw new Error(`the real pulumi CLI is required here: ${found.reason}`);
  return found;
}

/** A title suffix for tests that need the CLI: empty when it is there, the reason it is not otherwise. */
export function skipReason(): string {
  const { reason } = pulumiCli();
  return reason ? ` (skipped: ${reason})` : "";
}

export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr together, as a person reads them. */
  readonly output: string;
}

export interface RunOptions {
  /** Written to the command's stdin (a secret for `config set --secret`, say). */
  readonly input?: string;
  /** Extra environment for this command only. */
  readonly env?: Record<string, string>;
  /** Called with the child once started (to kill it at a chosen moment). */
  readonly started?: (child: import("node:child_process").ChildProcess) => void;
  readonly timeoutMs?: number;
  /** Starts the command in a process group of its own, as a shell's job: `-pid` then signals it and all it started. */
  readonly ownGroup?: boolean;
}

export interface PulumiStackOptions {
  /** The program's folder (Pulumi.yaml and its files): copied, with this package installed into the copy. */
  readonly program: string;
  readonly stack?: string;
  /** The program's environment (AUDIENCE_BASE_URL, say). */
  readonly env?: Record<string, string>;
  readonly passphrase?: string;
  /** Another stack's backend and home, to share them (two stacks of one project, or a state taken over). */
  readonly sharing?: PulumiStack;
}

export interface PulumiStack {
  readonly dir: string;
  readonly stack: string;
  readonly backend: string;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /** Runs `pulumi <args> --non-interactive` in the program's folder; never throws for a non-zero exit. */
  pulumi(args: readonly string[], options?: RunOptions): Promise<Run>;
  /** Like `pulumi`, but throws with the whole output when the command fails. */
  must(args: readonly string[], options?: RunOptions): Promise<Run>;
  config(values: Record<string, string>, secret?: boolean): Promise<void>;
  /** The stack's deployment as `pulumi stack export --show-secrets` prints it. */
  exported(): Promise<ExportedDeployment>;
  outputs(): Promise<Record<string, unknown>>;
}

export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  protect?: boolean;
  retainOnDelete?: boolean;
  provider?: string;
  dependencies?: string[];
}

export interface ExportedDeployment {
  version: number;
  deployment: { resources?: ExportedResource[]; pending_operations?: unknown[] };
}

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
  removeInstalledPrograms();
});

/** A program's source folder holding `files` (name to text), removed after the test file. */
export function programFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "pulumi-program-"));
  temporary.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A stack of `program` in an isolated PULUMI_HOME and file backend, created and selected. */
export async function pulumiStack(options: PulumiStackOptions): Promise<PulumiStack> {
  const cli = pulumiCli();
  if (!cli.dir) throw new Error(`no pulumi CLI: ${cli.reason}`);
  const name = options.program.split("/").filter(Boolean).at(-1)!;
  const dir = await installedProgram(options.program, name);
  const backend = options.sharing?.backend ?? mkdtempSync(join(tmpdir(), "pulumi-backend-"));
  const home = options.sharing?.home ?? mkdtempSync(join(tmpdir(), "pulumi-home-"));
  if (!options.sharing) temporary.push(backend, home);
  const stack = options.stack ?? "dev";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    // The CLI first, then the Node this test runs on (22+): the language host starts programs with `node` from PATH.
    PATH: [cli.dir, dirname(process.execPath), process.env["PATH"] ?? ""].join(delimiter),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: options.passphrase ?? "pulumi passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    NO_COLOR: "1",
    // A user's environment: without the `source` condition this checkout's tests run with.
    NODE_OPTIONS: "",
  };
  const pulumi = (args: readonly string[], o: RunOptions = {}) => run(join(cli.dir!, "pulumi"), [...args, "--non-interactive"], dir, { ...env, ...o.env }, o);
  const must = async (args: readonly string[], o: RunOptions = {}) => {
    const r = await pulumi(args, o);
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code ?? r.signal}:\n${r.output}`);
    return r;
  };
  await must(["stack", "select", "--create", "--stack", stack]);
  return {
    dir, stack, backend, home, env, pulumi, must,
    async config(values, secret = false) {
      for (const [key, value] of Object.entries(values)) {
        // On stdin, which the CLI reads when not interactive: a command line shows in process lists and failure text.
        // A key with a path (`brands[0]`, `audience:accounts.north.apiKey`) sets one member of a structured value.
        const path = /[[.]/.test(key.replace(/^[^:]*:/, "")) ? ["--path"] : [];
        await must(["config", "set", ...path, ...(secret ? ["--secret"] : []), key], { input: value });
      }
    },
    async exported() {
      return JSON.parse((await must(["stack", "export", "--show-secrets"])).stdout) as ExportedDeployment;
    },
    async outputs() {
      return JSON.parse((await must(["stack", "output", "--json", "--show-secrets"])).stdout || "{}") as Record<string, unknown>;
    },
  };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, o: RunOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: o.ownGroup === true });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => ((stdout += d), (output += d)));
    child.stderr.setEncoding("utf8").on("data", (d: string) => ((stderr += d), (output += d)));
    child.stdin.end(o.input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 170_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, output });
    });
    o.started?.(child);
  });
}

/** The files under the stack's backend, PULUMI_HOME and program folder (its node_modules aside) holding any of `secrets`. */
export function stackFilesHolding(stack: PulumiStack, secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) => [...filesHolding(stack.backend, secret), ...filesHolding(stack.home, secret), ...filesHolding(stack.dir, secret).filter((f) => !f.includes("node_modules"))]);
}

/** Every file under `dir` whose text holds `needle`: for secrets that must never be written in plaintext. */
export function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSafe(d)) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        try {
          if (readFileSync(path).includes(needle)) hits.push(path);
        } catch {
          // unreadable: not ours
        }
      }
    }
  };
  walk(dir);
  return hits;
}

function readdirSafe(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
