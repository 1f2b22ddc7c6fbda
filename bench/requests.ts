// The engine's baseline as a whole process: the same creates or deletes made with undici, a fixed number at a time,
// in a process that loads nothing else, so that it pays a process start as `bin/audience.js` does.
//   node bench/requests.ts create <url> <apiKey> <count> <parallel> <idsFile>   writes the ids made, one a line
//   node bench/requests.ts delete <url> <apiKey> <count> <parallel> <idsFile>   deletes them
import { readFileSync, writeFileSync } from "node:fs";
import { Pool, request } from "./lean-undici.ts";

const [mode, url, apiKey, countText, parallelText, idsFile] = process.argv.slice(2);
const count = Number(countText);
const parallel = Number(parallelText);
const pool = new Pool(url!, { connections: parallel });
const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
const ids: string[] = mode === "delete" ? readFileSync(idsFile!, "utf8").split("\n").filter(Boolean) : [];

async function one(i: number): Promise<void> {
  if (mode === "create") {
    const res = await request(pool, { method: "POST", path: "/v1/cohorts", headers, body: JSON.stringify({ name: `cohort ${i}` }) });
    if (res.statusCode >= 300) throw new Error(`POST: ${res.statusCode}`);
    ids[i] = ((await res.body.json()) as { id: string }).id;
  } else {
    const res = await request(pool, { method: "DELETE", path: `/v1/cohorts/${ids[i]}`, headers });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`DELETE: ${res.statusCode}`);
  }
}

let next = 0;
await Promise.all(Array.from({ length: parallel }, async () => {
  while (next < count) await one(next++);
}));
await pool.close();
if (mode === "create") writeFileSync(idsFile!, ids.join("\n"));
