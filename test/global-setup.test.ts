import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILT, isBuildStale } from "./global-setup.ts";

describe("the build the tests start from", () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  /** A checkout with one source per built folder and, when `built` is given, a build at that time (seconds). */
  function checkout(sourceTime: number, built?: number, changed?: string): string {
    const root = mkdtempSync(join(tmpdir(), "audience-build-"));
    roots.push(root);
    for (const dir of BUILT) {
      mkdirSync(join(root, dir, "nested"), { recursive: true });
      const source = join(root, dir, "nested", "index.ts");
      writeFileSync(source, "export {};\n");
      const time = changed === undefined || changed === dir ? sourceTime : 0;
      utimesSync(source, time, time);
    }
    if (built !== undefined) {
      mkdirSync(join(root, "dist", "provider"), { recursive: true });
      const out = join(root, "dist", "provider", "index.js");
      writeFileSync(out, "export {};\n");
      utimesSync(out, built, built);
    }
    return root;
  }

  it("is stale with no build, or with a source newer than every built file", () => {
    expect(isBuildStale(checkout(1_000))).toBe(true);
    expect(isBuildStale(checkout(2_000, 1_000))).toBe(true);
  });

  it("watches every folder the build compiles, the policy pack's too", () => {
    expect(BUILT).toEqual(expect.arrayContaining(["sdk", "provider", "policy", "emulator"]));
    for (const dir of BUILT) expect(isBuildStale(checkout(2_000, 1_000, dir)), dir).toBe(true);
  });

  it("is fresh when built after its sources changed", () => {
    expect(isBuildStale(checkout(1_000, 2_000))).toBe(false);
  });
});
