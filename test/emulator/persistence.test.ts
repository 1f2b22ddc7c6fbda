// With --data-dir every acknowledged write survives a restart and a kill -9; the CLI runs as a user runs it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { client, type Json } from "./helpers.ts";

const NODE = resolve("node_modules/.bin/node");
const CLI = resolve("provider/cli/main.ts");
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "audience-emulator-"));
  dirs.push(dir);
  return dir;
}

/** Starts `audience emulator` and waits for its two lines: the URL and the API key. */
async function cli(args: string[]): Promise<{ child: ChildProcess; url: string; key: string; lines: string[] }> {
  const child = spawn(NODE, [CLI, "emulator", "--port", "0", ...args], {
    env: { ...process.env, NODE_OPTIONS: "--conditions=source" }, stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  const lines = await new Promise<string[]>((ok, fail) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const l = out.split("\n");
      if (l.length >= 3) ok(l.slice(0, 2));
    });
    child.once("exit", (code) => fail(new Error(`emulator exited with ${String(code)}`)));
  });
  const url = /^listening on (http:\/\/\S+)$/.exec(lines[0] ?? "")?.[1];
  const key = /^api key (\S+)$/.exec(lines[1] ?? "")?.[1];
  if (!url || !key) throw new Error(`unexpected output: ${out}`);
  return { child, url, key, lines };
}

const exited = (child: ChildProcess) => new Promise<number | null>((ok) => {
  if (child.exitCode !== null || child.signalCode !== null) ok(child.exitCode);
  else child.once("exit", (code) => ok(code));
});

describe("audience emulator", () => {
  it("prints its URL and key, and stops cleanly on SIGTERM and SIGINT", { timeout: 90_000 }, async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const { child, url, lines } = await cli(["--api-key", "fixed-key"]);
      expect(lines[0]).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(lines[1]).toBe("api key fixed-key");
      expect((await client(url, "fixed-key").get("/v1/accounts/current")).status).toBe(200);
      if (signal === "SIGTERM") {
        const clash = spawn(NODE, [CLI, "emulator", "--port", new URL(url).port], { env: { ...process.env, NODE_OPTIONS: "--conditions=source" } });
        let err = "";
        clash.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        expect(await exited(clash)).toBe(1);
        expect(err).toContain("already in use");
      }
      child.kill(signal);
      expect(await exited(child)).toBe(0);
    }
  });

  it("refuses a --data-dir that is a file, or under one, in one line naming it", { timeout: 30_000 }, () => {
    const file = join(dataDir(), "notes.txt");
    writeFileSync(file, "not a directory\n");
    for (const [given, said] of [[file, " is a file: give a directory (new, or one an emulator kept its data in)"], [join(file, "data"), ": a folder on its path is a file"]] as const) {
      const run = spawnSync(NODE, [CLI, "emulator", "--port", "0", "--data-dir", given], { env: { ...process.env, NODE_OPTIONS: "--conditions=source" }, encoding: "utf8" });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(`audience emulator: cannot start: --data-dir ${given}${said}\n`);
    }
  });

  it("keeps state across a restart", { timeout: 90_000 }, async () => {
    const dir = dataDir();
    const first = await cli(["--data-dir", dir, "--api-key", "k1"]);
    const api = client(first.url, "k1");
    const cohort = (await api.post<Json>("/v1/cohorts", { name: "Persisted" })).body;
    await api.patch(`/v1/cohorts/${String(cohort.id)}`, { explore: true });
    first.child.kill("SIGTERM");
    await exited(first.child);

    const second = await cli(["--data-dir", dir, "--api-key", "k1"]);
    const again = client(second.url, "k1");
    expect((await again.get<Json>(`/v1/cohorts/${String(cohort.id)}`)).body).toMatchObject({ name: "Persisted", explore: true });
    expect((await again.get<Json[]>("/v1/cohorts")).body.filter((c) => c.name === "Leads")).toHaveLength(1);
    second.child.kill("SIGTERM");
    await exited(second.child);
  });

  it("loses no acknowledged write to a kill -9 in the middle of writing", { timeout: 90_000 }, async () => {
    const dir = dataDir();
    const first = await cli(["--data-dir", dir, "--api-key", "k2"]);
    const api = client(first.url, "k2");
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        try {
          const reply = await api.post<Json>("/v1/cohorts", { name: `c${acknowledged.length}` });
          if (reply.status === 201) acknowledged.push(String(reply.body.id));
        } catch {
          return; // the connection died with the process
        }
      }
    };
    let running = 4;
    const writers = Array.from({ length: running }, () => writer().finally(() => running--));
    while (acknowledged.length < 30 && running > 0) await new Promise((r) => setTimeout(r, 5));
    expect(acknowledged.length).toBeGreaterThanOrEqual(30);
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(writers);
    await exited(first.child);

    const second = await cli(["--data-dir", dir, "--api-key", "k2"]);
    const stored = new Set((await client(second.url, "k2").get<Json[]>("/v1/cohorts")).body.map((c) => String(c.id)));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    second.child.kill("SIGTERM");
    await exited(second.child);
  });
});
