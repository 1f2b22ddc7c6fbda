// Programs in native mode run through the local engine against one emulator: fresh accounts, program folders
// (an example switched to `pulumi-audience/native`, or a program's text) and runs of them. The `audience` plugin is
// served in the test's process (test/plugin/harness.ts), but in CLI-faithful mode, where it is the installed
// package's `pulumi-resource-audience` as the CLI starts it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { emulatorControl, startEmulator, type EmulatorControl, type EmulatorOptions, type RunningEmulator } from "pulumi-audience/emulator";
import { runProgram as runEngine, type Operation, type RunOptions, type RunResult } from "../../provider/engine/index.ts";
import { audienceExtension } from "../../provider/cli/extension.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { servedPlugin } from "../plugin/harness.ts";
import { faithfulMode } from "./installed.ts";

const ROOT = join(import.meta.dirname, "..", "..");
export const PASSPHRASE = "native passphrase";
/** The default provider's name, as the Pulumi CLI with the current Node.js language host names it (its version, and
 * the download URL of package.json's `pulumi.server`). */
export const DEFAULT_PROVIDER = "default_0_1_0_github_/api.github.com/pulumi-audience/pulumi-audience";
// Inside the repository, so the programs resolve `pulumi-audience` to this checkout, built (ignored by git).
const WORK = join(ROOT, ".audience", "native-tests");

/**
 * The environment of a run whose requests keep failing on purpose: the client gives up after 3 retries (a few
 * seconds) instead of the provider's default (about a minute), so the test reaches what follows giving up.
 */
export const GIVES_UP_SOON = { AUDIENCE_MAX_RETRIES: "3" } as const;

/** `runtime`: the program as a function in process (in-process-runtime.ts) instead of the folder's index.ts. */
export type RunExtra = Pick<RunOptions, "config" | "secrets" | "env" | "signal" | "runtime" | "stack">;

export interface NativePrograms {
  readonly emulator: RunningEmulator;
  /** A new account of the emulator; its id and API key. */
  account(name: string): Promise<{ id: string; apiKey: string }>;
  /** The emulator's request log since the last call, then cleared. */
  requests(): Promise<{ method: string; path: string }[]>;
  list<T>(apiKey: string, path: string): Promise<T[]>;
  /** A program folder: an example copied with its import switched to native mode, or a program's text. */
  program(name: string, source: { example: string } | { index: string }): string;
  /** Runs an operation on the program in `dir` as the account of `apiKey`, whatever its outcome. */
  run(dir: string, apiKey: string, operation: Operation, extra?: RunExtra): Promise<RunResult>;
  /** Runs an operation that must succeed. */
  runner(dir: string, apiKey: string): (operation: Operation, extra?: RunExtra) => Promise<RunResult>;
  /** PUTs or POSTs to the emulator's control plane. */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Moves the emulator's builds on (its control plane's `advanceBuilds`). */
  advanceBuilds: EmulatorControl["advanceBuilds"];
}

/** Starts an emulator for the file's tests and removes their program folders after. */
export function nativePrograms(options: EmulatorOptions = { port: 0 }): NativePrograms {
  let emulator: RunningEmulator | undefined;
  const made: string[] = [];
  beforeAll(async () => {
    emulator = await startEmulator(options);
    mkdirSync(WORK, { recursive: true });
  });
  afterAll(async () => {
    await emulator?.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  const running = () => {
    if (!emulator) throw new Error("the emulator is not started yet");
    return emulator;
  };
  const run = (dir: string, apiKey: string, operation: Operation, extra: RunExtra = {}) => {
    const options = {
      cwd: dir, operation, passphrase: PASSPHRASE, stateDir: join(dir, "state"), ...extra,
      env: { AUDIENCE_BASE_URL: `${running().url}/v1`, AUDIENCE_API_KEY: apiKey, ...extra.env },
    };
    if (faithfulMode()) return runProgram(options);
    return runEngine({ ...options, faithful: false, extension: { ...audienceExtension({ faithful: false }), pluginLaunch: () => servedPlugin() } });
  };
  const plane = emulatorControl(() => running().url);
  return {
    get emulator() {
      return running();
    },
    async account(name) {
      const { id, api_key } = await plane.createAccount({ name, forecasts: true });
      return { id, apiKey: api_key };
    },
    requests: () => plane.takeRequests(),
    async list<T>(apiKey: string, path: string) {
      const res = await fetch(`${running().url}/v1/${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as T[];
    },
    program(name, source) {
      const dir = mkdtempSync(join(WORK, `${name}-`));
      made.push(dir);
      if ("example" in source) {
        cpSync(join(ROOT, "examples", source.example), dir, { recursive: true });
        const index = join(dir, "index.ts");
        writeFileSync(index, readFileSync(index, "utf8").replace(/from "pulumi-audience"/, 'from "pulumi-audience/native"'));
      } else {
        writeFileSync(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.ts\n`);
        writeFileSync(join(dir, "index.ts"), source.index);
      }
      return dir;
    },
    run,
    runner(dir, apiKey) {
      return async (operation, extra = {}) => {
        const result = await run(dir, apiKey, operation, extra);
        if (!result.ok) throw new Error(`${operation} failed: ${result.error}\n${result.diagnostics.map((d) => d.message).join("\n")}`);
        return result;
      };
    },
    control: plane.control,
    advanceBuilds: plane.advanceBuilds,
  };
}

/** The writes among logged requests, as `METHOD /path`. */
export const writes = (list: { method: string; path: string }[]) => list.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** The names of the resources a run's steps of `op` finished. */
export const stepsOf = (result: RunResult, op: string) => result.steps.filter((s) => s.phase === "done" && s.op === op).map((s) => s.urn.split("::").pop());
