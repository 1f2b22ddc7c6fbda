// A program that throws, started as the Pulumi CLI's Node language host starts it (`node <nodeargs>
// @pulumi/pulumi/cmd/run --monitor ... <program>`) with no preload but the one a program's Pulumi.yaml names
// (`--require=pulumi-audience/require-node`), prints its error and exits, instead of hanging in util.inspect on the
// stack that the runtime's source-map-support would make of @pulumi/pulumi's sources.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMonitor } from "../../provider/engine/monitor.ts";
import { resolvePulumiModule } from "../../provider/protocol/proto.ts";
import { PINNED_NODE_DIR } from "../provider/installed.ts";

const PROGRAM = new URL("./fixtures/notes/", import.meta.url).pathname.replace(/\/$/, "");
const notesDir = mkdtempSync(join(tmpdir(), "failing-program-"));
afterAll(() => rmSync(notesDir, { recursive: true, force: true }));

/** Runs the program once; a run that has not ended after `limit` ms is killed and reported as hung. */
async function runProgram(nodeArgs: string[], limit: number): Promise<{ exit: number | "hung"; output: string }> {
  const logs: string[] = [];
  const monitor = await startMonitor({
    register: async (r) => ({ urn: `urn:pulumi:dev::notes::${r.type}::${r.name}`, id: r.custom ? `${r.name}-id` : "", outputs: r.inputs }),
    registerOutputs: async () => undefined,
    read: async () => { throw new Error("no reads here"); },
    invoke: async () => ({}),
    log: (severity, message) => void logs.push(`${severity}: ${message}`),
  }, PROGRAM);
  try {
    const entry = resolvePulumiModule(PROGRAM, "cmd/run/index.js");
    const args = [
      ...nodeArgs, entry,
      `--monitor=${monitor.address}`, `--engine=${monitor.address}`, "--organization=organization", "--project=notes", "--stack=dev",
      `--root-directory=${PROGRAM}`, `--pwd=${PROGRAM}`, "--parallel=4", join(PROGRAM, "index.ts"),
    ];
    const env = {
      HOME: process.env["HOME"] ?? tmpdir(),
      PATH: `${PINNED_NODE_DIR}:/usr/bin:/bin`,
      NOTES_DIR: notesDir,
      PULUMI_CONFIG: JSON.stringify({ "notes:throw": "true" }),
    };
    const child = spawn(join(PINNED_NODE_DIR, "node"), args, { cwd: PROGRAM, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d: Buffer) => logs.push(String(d)));
    child.stderr.on("data", (d: Buffer) => logs.push(String(d)));
    const exit = await new Promise<number | "hung">((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve("hung");
      }, limit);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code ?? 1);
      });
    });
    return { exit, output: logs.join("\n") };
  } finally {
    await monitor.close();
  }
}

describe("a failing program under the pinned Node, with only the preload its Pulumi.yaml names", () => {
  it("prints its error and exits with a failure status", { timeout: 150_000 }, async () => {
    // Far longer than such a run takes even on a loaded machine: only a hang reaches it.
    const { exit, output } = await runProgram(["--require=pulumi-audience/require-node"], 120_000);
    expect(exit, output).not.toBe("hung");
    expect(exit).not.toBe(0);
    expect(output).toContain("the notes program failed on purpose");
  });
});
