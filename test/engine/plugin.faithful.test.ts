// Native resources in the engine's CLI-faithful mode: the plugin is the program's installed
// `pulumi-resource-audience` (from `npm pack`), run as the Pulumi CLI runs a resource plugin, with the engine's
// address as its only argument; its default provider is named as the CLI names it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import type { Operation } from "../../provider/engine/index.ts";
import { runProgram } from "../../provider/cli/program.ts";
import { installedProgram, removeInstalledPrograms } from "./installed.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator?.close();
  removeInstalledPrograms();
});

/** The command lines of the processes running now. */
function commandLines(): string[][] {
  return readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      return [readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").filter((a) => a !== "")];
    } catch {
      return [];
    }
  });
}

it("runs the installed plugin with the CLI's arguments, and names its default provider default_0_1_0", { timeout: 600_000 }, async () => {
  const program = await installedProgram(join(import.meta.dirname, "fixtures", "native"), "native");
  const plugins = new Set<string>();
  const watch = setInterval(() => {
    for (const args of commandLines()) {
      const at = args.findIndex((a) => a.endsWith("/node_modules/pulumi-audience/bin/pulumi-resource-audience.js"));
      if (at >= 0) plugins.add(JSON.stringify(args.slice(at + 1)));
    }
  }, 50);
  const run = (operation: Operation) => runProgram({
    cwd: program, operation, passphrase: "faithful plugin", faithful: true,
    env: { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey, NODE_OPTIONS: "" },
  });
  try {
    const up = await run("up");
    expect(up.ok, up.error).toBe(true);
    expect(up.changes.create).toBeGreaterThanOrEqual(2);
    expect([...plugins].map((p) => JSON.parse(p) as string[])).toEqual(expect.arrayContaining([[expect.stringMatching(/^127\.0\.0\.1:\d+$/)]]));
    expect([...plugins].every((p) => (JSON.parse(p) as string[]).length === 1)).toBe(true);
    expect(readFileSync(up.statePath, "utf8")).toContain("::pulumi:providers:audience::default_0_1_0");
    const destroy = await run("destroy");
    expect(destroy.ok, destroy.error).toBe(true);
  } finally {
    clearInterval(watch);
  }
});
