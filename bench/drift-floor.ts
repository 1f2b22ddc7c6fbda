// The wire's floor for a fleet scan: the same lists `audience drift` fetches, downloaded and parsed with undici and
// nothing else, accounts in parallel and 8 lists at once per account, as the scan does. Given state files too, it
// also reads and parses them, one after the other while the lists download, as the scan must: the floor of any
// scan of those states. Run as its own process:
//   node bench/drift-floor.ts <plan.json> [state.json...]   plan: [{ "baseUrl", "apiKey", "paths": ["/accounts/current", ...] }]
// Prints one JSON line: the documents parsed (and the states' resources).
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Dispatcher, Pool as UndiciPool } from "undici";

// The undici parts a request needs, required by path as the client requires them: undici's index (fetch, WebSocket,
// caches, mocks) takes a quarter of a second to load, which is no part of the wire's floor and the scan never pays.
const requireUndici = createRequire(import.meta.url);
const Pool = requireUndici("undici/lib/dispatcher/pool.js") as typeof UndiciPool;
const request = requireUndici("undici/lib/api/api-request.js") as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

interface AccountPlan {
  baseUrl: string;
  apiKey: string;
  paths: string[];
}

const [planFile, ...stateFiles] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile!, "utf8")) as AccountPlan[];
let documents = 0;
let stateResources = 0;
const lists = Promise.all(plan.map(async ({ baseUrl, apiKey, paths }) => {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/$/, "");
  const pool = new Pool(url.origin, { connections: 8 });
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await request.call(pool, { method: "GET", path: `${prefix}${path}`, headers: { authorization: `Bearer ${apiKey}` } });
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
      const body = (await res.body.json()) as unknown;
      documents += Array.isArray(body) ? body.length : 1;
    }
  }));
  await pool.close();
}));
for (const file of stateFiles) stateResources += (JSON.parse(await readFile(file, "utf8")) as { deployment: { resources: unknown[] } }).deployment.resources.length;
await lists;
console.log(JSON.stringify({ documents, ...(stateFiles.length > 0 ? { stateResources } : {}) }));
