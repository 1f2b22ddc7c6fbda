// A full disk under --data-dir: the write is refused with a clear 507 naming the cause, the SQLite error is
// logged (not masked by a failed ROLLBACK), and every write answered 2xx is still there after a restart.
// The disk is a real 1 MiB tmpfs mounted in a user and mount namespace (`unshare -rm`).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const NODE = resolve("node_modules/.bin/node");
const RUN = resolve("test/emulator/fixtures/full-disk-run.ts");
const dir = mkdtempSync(join(tmpdir(), "audience-full-disk-"));
const mountable = spawnSync("unshare", ["-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$0"', dir]).status === 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Outcome = { answers: { subpath: string; status: number; body: string }[]; small: { status: number; kept: boolean }; kept: string[] };

describe.skipIf(!mountable)("the emulator on a full disk (skipped where `unshare -rm` cannot mount a tmpfs)", () => {
  it("answers 507 with the cause, logs the SQLite error and keeps every acknowledged write", () => {
    const run = spawnSync("unshare", ["-rm", "sh", "-c", 'mount -t tmpfs -o size=1m tmpfs "$0" && exec "$1" --conditions=source "$2" "$0/data"', dir, NODE, RUN], {
      encoding: "utf8", timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as Outcome;
    const acknowledged = outcome.answers.filter((a) => a.status === 201).map((a) => a.subpath);
    const refused = outcome.answers.filter((a) => a.status !== 201);
    // The disk holds some uploads and not all of them.
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(507);
      const body = JSON.parse(answer.body) as { error: string; note: string };
      expect(body.error).toBe("INTERNAL_SERVER_ERROR");
      expect(body.note).toMatch(/disk is full \(SQLITE_FULL: database or disk is full\)/);
      expect(body.note).toMatch(/Nothing of this request was kept/);
    }
    expect(run.stderr).toMatch(/The data directory refused a write:[\s\S]*database or disk is full/);
    expect(run.stderr).not.toMatch(/cannot rollback/);
    // Every write answered 2xx is kept, and none that was refused.
    expect(outcome.kept.sort()).toEqual(acknowledged.sort());
    expect(outcome.small).toEqual({ status: 201, kept: true });
  });
});
