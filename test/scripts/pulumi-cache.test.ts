import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { buildFolder, markUsed, pruneBuilds, STAMP, stagingFolder } from "../../scripts/pulumi-cache.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pulumi-cache-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const DAY = 86_400_000;

/** A whole build last used `daysAgo` days ago; its path. */
function build(name: string, daysAgo: number): string {
  const folder = join(root, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "pulumi"), "binary");
  writeFileSync(join(folder, STAMP), "v3.274.1\n");
  const used = new Date(Date.now() - daysAgo * DAY);
  utimesSync(join(folder, STAMP), used, used);
  return folder;
}

/** The pid of a process that has ended. */
function endedPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid!;
}

it("keeps the new build and the other one used last, and leaves what it does not recognise", () => {
  const current = build("pulumi-v3.274.1-aaaaaaaaaaaa", 0);
  build("pulumi-v3.274.1-bbbbbbbbbbbb", 1);
  build("pulumi-v3.270.0-cccccccccccc", 2);
  build("pulumi-v3.260.0-dddddddddddd", 10);
  mkdirSync(join(root, "pulumi-v3.274.1-eeeeeeeeeeee")); // no stamp: not a whole build
  mkdirSync(join(root, "notes"));
  mkdirSync(join(root, `pulumi-v3.274.1-ffffffffffff.${endedPid()}.tmp`));
  mkdirSync(join(root, `pulumi-v3.274.1-ffffffffffff.${process.pid}.tmp`)); // an install still running

  expect(pruneBuilds(current).sort()).toEqual([
    "pulumi-v3.260.0-dddddddddddd",
    "pulumi-v3.270.0-cccccccccccc",
    expect.stringMatching(/^pulumi-v3\.274\.1-ffffffffffff\.\d+\.tmp$/),
  ]);
  expect(readdirSync(root).sort()).toEqual([
    "notes",
    "pulumi-v3.274.1-aaaaaaaaaaaa",
    "pulumi-v3.274.1-bbbbbbbbbbbb",
    "pulumi-v3.274.1-eeeeeeeeeeee",
    `pulumi-v3.274.1-ffffffffffff.${process.pid}.tmp`,
  ]);
});

it("a build marked used is the one kept", () => {
  const current = build("pulumi-v3.274.1-aaaaaaaaaaaa", 0);
  build("pulumi-v3.274.1-bbbbbbbbbbbb", 1);
  const older = build("pulumi-v3.270.0-cccccccccccc", 5);
  markUsed(older);

  expect(pruneBuilds(current)).toEqual(["pulumi-v3.274.1-bbbbbbbbbbbb"]);
  expect(readdirSync(root).sort()).toEqual(["pulumi-v3.270.0-cccccccccccc", "pulumi-v3.274.1-aaaaaaaaaaaa"]);
});

it("recognises the names it gives a build and its staging folder", () => {
  const current = build("pulumi-v3.274.1-aaaaaaaaaaaa", 0);
  build("pulumi-v3.274.1-bbbbbbbbbbbb", 1);
  const named = buildFolder(root, "v3.260.0", "c".repeat(64));
  expect(named).toBe(join(root, "pulumi-v3.260.0-cccccccccccc"));
  build("pulumi-v3.260.0-cccccccccccc", 2);
  mkdirSync(stagingFolder(named, endedPid()));

  expect(pruneBuilds(current)).toHaveLength(2);
  expect(readdirSync(root).sort()).toEqual(["pulumi-v3.274.1-aaaaaaaaaaaa", "pulumi-v3.274.1-bbbbbbbbbbbb"]);
});

it("with no other build it removes nothing", () => {
  expect(pruneBuilds(build("pulumi-v3.274.1-aaaaaaaaaaaa", 0))).toEqual([]);
});
