// What `pulumi up` tells its user, through the real CLI (test/pulumi/fixtures/notices): a build being waited for shows
// its statuses, an adopted resource says so, a refused input and a failed delete are one error each, named once and
// without a stack; with and without the documented preload (`--require=pulumi-audience/require-node`, given through
// NODE_OPTIONS, which any language host passes on).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { emulatorUnderTest } from "../engine/emulator-control.ts";
import { pulumiCli, pulumiStack, skipReason, type PulumiStack } from "./cli.ts";

const PROGRAM = join(import.meta.dirname, "fixtures", "notices");
const PRELOAD = "--require=pulumi-audience/require-node";

let emulator: RunningEmulator;
beforeAll(async () => {
  // Builds that take a while, so the run waits and reports their statuses.
  emulator = await startEmulator({ builds: { default: 4_000 } });
});
afterAll(() => emulator?.close());

async function api(apiKey: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}/v1${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

const { control, createAccount } = emulatorUnderTest(() => emulator);
const count = (text: string, needle: string) => text.split(needle).length - 1;
/** The closing Diagnostics section of a run's output. */
const diagnostics = (output: string) => output.slice(output.indexOf("\nDiagnostics:"), output.indexOf("\nResources:"));

describe.each([{ preload: false }, { preload: true }])(`pulumi up's output, preload $preload${skipReason()}`, { timeout: 300_000 }, ({ preload }) => {
  let stack: PulumiStack;
  let adoptId: string;

  beforeAll(async () => {
    if (!pulumiCli().dir) return;
    const { api_key: apiKey } = await createAccount({ name: `notices-${preload}`, forecasts: true });
    adoptId = String((await api(apiKey, "POST", "/cohorts", { name: "Made by hand", stream_name: "transactions", min_count: 2 })).id);
    stack = await pulumiStack({
      program: PROGRAM, stack: preload ? "preloaded" : "plain",
      env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, ...(preload ? { NODE_OPTIONS: PRELOAD } : {}) },
    });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.config({ adoptId });
  });

  it.skipIf(!pulumiCli().dir)("shows a build being waited for and a resource adopted", async () => {
    const up = await stack.must(["up", "--yes", "--skip-preview"]);
    // Pulumi's dynamic-provider host logs without the resource: on the stack's line, so the message names it.
    expect(up.output).toMatch(/Scope "Awaited" \(\S+\): ready/);
    expect(up.output).toContain(`Cohort "Adopted": adopted ${adoptId} (adoptId) instead of creating it, brought to the declared inputs`);
    const adopted = (await stack.exported()).deployment.resources!.find((r) => r.urn.endsWith("::adopted"))!;
    expect(adopted.id).toBe(adoptId);
  });

  it.skipIf(!pulumiCli().dir)("names a refused input once", async () => {
    await stack.config({ refused: "true" });
    const up = await stack.pulumi(["up", "--yes", "--skip-preview"], { timeoutMs: 120_000 });
    await stack.config({ refused: "false" });
    expect(up.code, up.output).toBe(1);
    const error = /minCount[^\n]*/.exec(up.output)?.[0];
    expect(error, up.output).toBeDefined();
    // Once in the closing diagnostics; besides, Pulumi's own display repeats it only on the resource's status line.
    expect(count(diagnostics(up.output), error!), up.output).toBe(1);
    expect(up.output.split("\n").filter((line) => line.includes(error!) && !/^\s+pulumi-nodejs:dynamic\/audience:Cohort refused\s/.test(line)), up.output).toHaveLength(1);
  });

  // Pulumi's dynamic-provider host also writes what a failed read, diff or delete threw, with its stack, to the
  // stack's line: the provider's own error is the one shown.
  it.skipIf(!pulumiCli().dir)("names a failed delete once, without a stack", async () => {
    await control("PUT", "/faults", { rules: [{ method: "DELETE", path: "/cohorts/*", status: 400, error: "BAD_REQUEST" }] });
    const destroy = await stack.pulumi(["destroy", "--yes", "--skip-preview"], { timeoutMs: 120_000 }).finally(() => control("DELETE", "/faults"));
    expect(destroy.code, destroy.output).toBe(1);
    const error = /DELETE \/cohorts\/[^\n]*400[^\n]*/.exec(destroy.output)?.[0];
    expect(error, destroy.output).toBeDefined();
    expect(destroy.output).not.toMatch(/^\s+at /m);
    // Once in the closing diagnostics; besides, Pulumi's own display repeats it only on the resource's status lines.
    expect(destroy.output.split("\n").filter((line) => line.includes(error!) && !/^ -\s+pulumi-nodejs:dynamic\/audience:Cohort adopted\s/.test(line)), destroy.output).toHaveLength(1);
  });
});
