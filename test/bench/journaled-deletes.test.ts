// The `destroy`'s crash-safe floor (bench/journaled-deletes.ts) does the work it stands for: each DELETE made, the
// state's checksum verified before any, and a state the engine opens left behind, its lock and journal gone.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { baselineScript } from "../../bench/measure.ts";
import { Snapshot } from "../../provider/engine/snapshot.ts";

const run = promisify(execFile);
const COUNT = 12;
const PASSPHRASE = "floor passphrase";

let emulator: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await startEmulator();
  dir = mkdtempSync(join(tmpdir(), "journaled-deletes-"));
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A state of COUNT cohorts and one other resource, as the engine writes it; the service holds COUNT cohorts. */
async function stackOfCohorts(name: string): Promise<{ stateFile: string; ids: string[] }> {
  const stateFile = join(dir, `${name}.json`);
  const state = await Snapshot.load(stateFile, PASSPHRASE);
  const urn = (type: string, n: string) => `urn:pulumi:dev::floor::${type}::${n}`;
  await state.upsert({ urn: urn("pulumi:pulumi:Stack", "floor-dev"), custom: false, type: "pulumi:pulumi:Stack", inputs: {}, outputs: {}, dependencies: [] });
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const res = await fetch(`${emulator.url}/v1/cohorts`, { method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: `${name} ${i}` }) });
    const { id } = (await res.json()) as { id: string };
    ids.push(id);
    const type = "pulumi-nodejs:dynamic/audience:Cohort";
    await state.upsert({ urn: urn(type, `cohort-${i}`), custom: true, type, id: `recorded-${i}`, inputs: { name: `${name} ${i}` }, outputs: { name: `${name} ${i}` }, dependencies: [] });
  }
  await state.compact();
  await state.close();
  writeFileSync(join(dir, `${name}.ids`), ids.join("\n"));
  return { stateFile, ids };
}

const floor = async (name: string, stateFile: string) =>
  run(process.execPath, [await baselineScript(join(import.meta.dirname, "..", "..", "bench", "journaled-deletes.ts")), emulator.url, emulator.apiKey, "4", join(dir, `${name}.ids`), stateFile]);

const live = async (id: string) => (await fetch(`${emulator.url}/v1/cohorts/${id}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).status;

describe("the destroy's crash-safe floor", () => {
  it("deletes each cohort and leaves a state the engine opens, without them, its lock and journal gone", async () => {
    const { stateFile, ids } = await stackOfCohorts("whole");
    await floor("whole", stateFile);
    for (const id of ids) expect(await live(id)).toBe(404);
    const left = await Snapshot.load(stateFile, PASSPHRASE);
    expect(left.resources.map((r) => r.type)).toEqual(["pulumi:pulumi:Stack"]);
    await left.close();
    expect(existsSync(`${stateFile}.journal`)).toBe(false);
    expect(existsSync(`${stateFile}.lock`)).toBe(false);
  });

  it("verifies the state's checksum before any DELETE", async () => {
    const { stateFile, ids } = await stackOfCohorts("damaged");
    writeFileSync(stateFile, readFileSync(stateFile, "utf8").replace("damaged 0", "damaged 9"));
    await expect(floor("damaged", stateFile)).rejects.toThrow(/checksum mismatch/);
    for (const id of ids) expect(await live(id)).toBe(200);
  });
});
