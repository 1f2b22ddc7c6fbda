// The wire's floor for a fleet scan: the same lists `audience drift` fetches, downloaded and parsed with undici and
// nothing else, accounts in parallel and 8 lists at once per account, as the scan does. Run as its own process:
//   node bench/drift-floor.ts <plan.json>   plan: [{ "baseUrl", "apiKey", "paths": ["/accounts/current", ...] }]
// Prints one JSON line: the documents parsed.
import { readFileSync } from "node:fs";
import { Pool } from "undici";

interface AccountPlan {
  baseUrl: string;
  apiKey: string;
  paths: string[];
}

const plan = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as AccountPlan[];
let documents = 0;
await Promise.all(plan.map(async ({ baseUrl, apiKey, paths }) => {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/$/, "");
  const pool = new Pool(url.origin, { connections: 8 });
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await pool.request({ method: "GET", path: `${prefix}${path}`, headers: { authorization: `Bearer ${apiKey}` } });
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
      const body = (await res.body.json()) as unknown;
      documents += Array.isArray(body) ? body.length : 1;
    }
  }));
  await pool.close();
}));
console.log(JSON.stringify({ documents }));
