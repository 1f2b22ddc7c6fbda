// The floor of a crash-safe `destroy`, as a whole process: the same DELETEs as bench/requests.ts, with what any
// engine that leaves a true state after a crash must add to them and nothing else:
//   node bench/journaled-deletes.ts <url> <apiKey> <parallel> <idsFile> <stateFile>
// - the stack locked (a lock file made exclusively, removed at the end);
// - the state file read, parsed and its checksum verified (SHA-256 of its deployment, as the engine's);
// - per delete, a record that it begins (the resource's URN, type, id and inputs, what finishing it after a crash
//   needs) and one that it ended and the resource is gone, each with its place and checksum; records appended while
//   a write is under way go out together in the next write and sync, and the run ends once all are on disk (as in
//   the engine, a delete does not wait for its records: until they are on disk the state still holds the resource,
//   and the next run deletes it again);
// - the state without the deleted resources written to a temporary file, synced and renamed over the old one, then
//   the journal removed.
// The state is the engine's own state of the same stack (copied before its destroy); its i-th cohort is given the
// i-th id of `idsFile` (made by bench/requests.ts create), so the records are the size the engine's are.
import { createHash, randomBytes } from "node:crypto";
import { open, readFile, rename, rm, writeFile, type FileHandle } from "node:fs/promises";
import { Pool, request } from "./lean-undici.ts";

const [url, apiKey, parallelText, idsFile, stateFile] = process.argv.slice(2) as [string, string, string, string, string];
const parallel = Number(parallelText);
const pool = new Pool(url, { connections: parallel });
const headers = { authorization: `Bearer ${apiKey}` };
const DEPLOYMENT_KEY = '"deployment":';
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** The state's checksum, as the engine's: of its journal count and its deployment's text. */
const stateDigest = (journal: number, deploymentText: string) => createHash("sha256").update(`${journal}:`).update(deploymentText).digest("hex");

const lockFile = `${stateFile}.lock`;
const lock = await open(lockFile, "wx");
await lock.writeFile(String(process.pid));
await lock.close();

const text = await readFile(stateFile, "utf8");
const doc = JSON.parse(text) as { integrity: { journal: number; sha256: string }; deployment: { resources: { urn: string; type: string; id?: string; inputs: unknown }[] } };
const deployment = text.slice(text.indexOf(DEPLOYMENT_KEY) + DEPLOYMENT_KEY.length, text.lastIndexOf("}"));
if (stateDigest(doc.integrity.journal, deployment) !== doc.integrity.sha256) {
  throw new Error(`${stateFile}: checksum mismatch`);
}
const ids = (await readFile(idsFile, "utf8")).split("\n").filter(Boolean);
const resources = doc.deployment.resources.filter((r) => r.id !== undefined && r.urn.includes("::cohort-"));
if (resources.length !== ids.length) throw new Error(`${resources.length} cohorts in the state, ${ids.length} ids`);

const journalFile = `${stateFile}.journal`;
let journal: FileHandle | undefined;
let seq = doc.integrity.journal;
let queued: string[] = [];
let writer: Promise<void> | undefined;
/** Appends a record: written with those queued meanwhile, in one write and one sync. */
function append(record: object): void {
  seq += 1;
  const content = JSON.stringify(record);
  queued.push(`{"seq":${seq},"sum":"${sha256(`${seq}:${content}`).slice(0, 16)}",${content.slice(1)}\n`);
  writer ??= (async () => {
    while (queued.length > 0) {
      const batch = queued;
      queued = [];
      journal ??= await open(journalFile, "a");
      await journal.write(batch.join(""));
      await journal.datasync();
    }
    writer = undefined;
  })();
}

let next = 0;
await Promise.all(Array.from({ length: parallel }, async () => {
  while (next < resources.length) {
    const i = next++;
    const { urn, type, inputs } = resources[i]!;
    const resource = { urn, type, id: ids[i]!, inputs };
    const op = randomBytes(8).toString("hex");
    append({ begin: { type: "deleting", resource, id: op } });
    const res = await request(pool, { method: "DELETE", path: `/v1/cohorts/${resource.id}`, headers });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`DELETE: ${res.statusCode}`);
    append({ end: op, drop: resource.urn });
  }
}));
while (writer) await writer;
await pool.close();

const gone = new Set(resources.map((r) => r.urn));
const left = { ...doc.deployment, resources: doc.deployment.resources.filter((r) => !gone.has(r.urn)) };
const leftText = JSON.stringify(left);
const state = `{"version":3,"integrity":${JSON.stringify({ journal: seq, sha256: stateDigest(seq, leftText) })},"deployment":${leftText}}`;
const temporary = `${stateFile}.tmp`;
await writeFile(temporary, state);
const written = await open(temporary, "r+");
await written.datasync();
await written.close();
await rename(temporary, stateFile);
await journal?.close();
await rm(journalFile, { force: true });
await rm(lockFile);
