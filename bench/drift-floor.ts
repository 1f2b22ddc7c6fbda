// The floors of a fleet scan, run as its own process:
//   node bench/drift-floor.ts <plan.json> [--report] [state.json...]
//   plan: [{ "account", "baseUrl", "apiKey", "paths": ["/accounts/current", ...] }]
// - The wire's floor: the same lists `audience drift` fetches, downloaded and parsed with undici and nothing else,
//   accounts in parallel and 8 lists at once per account, as the scan does. Prints one JSON line: the documents parsed.
// - Given state files too, it also reads and parses them, one after the other while the lists download, as the scan
//   must: the floor of any scan of those states (the line also counts the states' resources).
// - With --report, the least a scan that reports each resource does: each state's resources kept until every state
//   is read (another state may manage more of an account), each list held as text until then, each listed document
//   compared with its resource's declared members by plain deep equality, one report entry per resource, the
//   report printed as `audience drift --format json` prints it.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Pool, request } from "./lean-undici.ts";

interface AccountPlan {
  /** The account's name, as the states' resources give it (`account`). */
  account: string;
  baseUrl: string;
  apiKey: string;
  paths: string[];
}

type Props = Record<string, unknown>;

const [planFile, ...rest] = process.argv.slice(2);
const reporting = rest[0] === "--report";
const stateFiles = reporting ? rest.slice(1) : rest;
const plan = JSON.parse(readFileSync(planFile!, "utf8")) as AccountPlan[];
let documents = 0;
let stateResources = 0;
/** With --report, each account's lists as text, parsed once every state is read. */
const texts: string[][] = plan.map(() => []);
const lists = Promise.all(plan.map(async ({ baseUrl, apiKey, paths }, index) => {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/$/, "");
  const pool = new Pool(url.origin, { connections: 8 });
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await request(pool, { method: "GET", path: `${prefix}${path}`, headers: { authorization: `Bearer ${apiKey}` } });
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
      if (reporting) {
        texts[index]!.push(await res.body.text());
        continue;
      }
      const body = (await res.body.json()) as unknown;
      documents += Array.isArray(body) ? body.length : 1;
    }
  }));
  await pool.close();
}));
/** What --report keeps of a state's resource, by account and id. */
interface Kept {
  urn: string;
  type: string;
  id: string;
  inputs: Props;
}
const kept = new Map<string, Map<string, Kept>>();
for (const file of stateFiles) {
  const { resources } = (JSON.parse(await readFile(file, "utf8")) as { deployment: { resources: Props[] } }).deployment;
  stateResources += resources.length;
  if (!reporting) continue;
  for (const r of resources) {
    const inputs = r.inputs as Props | undefined;
    if (typeof r.id !== "string" || typeof inputs?.account !== "string") continue;
    let ofAccount = kept.get(inputs.account);
    if (!ofAccount) kept.set(inputs.account, (ofAccount = new Map()));
    const type = String(r.type);
    ofAccount.set(r.id, { urn: String(r.urn), type: type.slice(type.lastIndexOf(":") + 1), id: r.id, inputs });
  }
}
await lists;
if (!reporting) {
  console.log(JSON.stringify({ documents, ...(stateFiles.length > 0 ? { stateResources } : {}) }));
} else {
  // Pulumi's mark of a secret, as `pulumi stack export --show-secrets` writes it with its plaintext.
  const SECRET_KEY = "4dabf18193072939515e22adb298388d";
  const wireNames = new Map<string, string>();
  const wireName = (key: string) => {
    let name = wireNames.get(key);
    if (name === undefined) wireNames.set(key, (name = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
    return name;
  };
  /** Declared members against the document's: markers (`__*`) and `account` are not the document's; the service's
   * `<secret>` stands for any value. */
  const same = (declared: unknown, live: unknown, top: boolean): boolean => {
    if (declared !== null && typeof declared === "object" && SECRET_KEY in declared) declared = JSON.parse(String((declared as Props).plaintext));
    if (live === "<secret>") return declared !== undefined;
    if (declared === live) return true;
    if (typeof declared !== "object" || typeof live !== "object" || declared === null || live === null) return false;
    if (Array.isArray(declared)) return Array.isArray(live) && declared.length === live.length && declared.every((v, i) => same(v, live[i], false));
    for (const key in declared) {
      if (top && (key.startsWith("__") || key === "account")) continue;
      if (!same((declared as Props)[key], (live as Props)[wireName(key)], false)) return false;
    }
    return true;
  };
  const summary = { in_sync: 0, drifted: 0 };
  const accounts = plan.map(({ account, baseUrl }, index) => {
    const ofAccount = kept.get(account);
    const resources: Props[] = [];
    for (const text of texts[index]!) {
      const body = JSON.parse(text) as unknown;
      if (!Array.isArray(body) || !ofAccount) continue;
      for (const doc of body as Props[]) {
        const r = ofAccount.get(String(doc.id));
        if (!r) continue;
        const status = same(r.inputs, doc, true) ? "in_sync" : "drifted";
        summary[status]++;
        resources.push({ urn: r.urn, type: r.type, name: r.urn.slice(r.urn.lastIndexOf("::") + 2), id: r.id, status, changes: [] });
      }
    }
    return { account, baseUrl: new URL(baseUrl).origin, resources };
  });
  process.stdout.write(`${JSON.stringify({ accounts, summary }, null, 2)}\n`);
}
