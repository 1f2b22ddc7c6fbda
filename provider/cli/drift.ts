// `audience drift`: reads every audience resource of an exported stack from the service, across its accounts, and
// reports what changed outside the program (what `pulumi refresh` would find), without touching state.
import { readFile } from "node:fs/promises";
import Table from "cli-table3";
import type { Command } from "commander";
import { clientService, compare, createLifecycle, credentialsFor, readSettings, type Settings } from "pulumi-audience/provider";
import { SIG_KEY } from "../plugin/values.ts";

const TYPE_PREFIX = "pulumi-nodejs:dynamic/audience:";
const HIDDEN = "[secret]";

export interface DriftEntry {
  /** The resource's name in the program. */
  name: string;
  /** Its class: Scope, Target, ... */
  kind: string;
  id: string;
  account: string;
  status: "in sync" | "drifted" | "gone" | "failed";
  /** Members (camelCase) whose service value differs from the program's. */
  members: string[];
  message?: string;
}

interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** Secrets as `pulumi stack export` writes them: revealed with --show-secrets, else a stand-in on both sides. */
function reveal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reveal);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (SIG_KEY in record) return typeof record.plaintext === "string" ? reveal(JSON.parse(record.plaintext)) : HIDDEN;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, reveal(v)]));
}

/** The audience resources of a `pulumi stack export` document. */
export function audienceResources(document: unknown): ExportedResource[] {
  const deployment = (document as { deployment?: { resources?: unknown } }).deployment;
  const resources = Array.isArray(deployment?.resources) ? (deployment.resources as ExportedResource[]) : [];
  return resources.filter((r) => typeof r.type === "string" && r.type.startsWith(TYPE_PREFIX) && typeof r.id === "string" && r.id !== "");
}

/** Reads each resource once (one GET) and compares it with the inputs the program declared. */
export async function detectDrift(document: unknown, settings: Settings): Promise<DriftEntry[]> {
  const lifecycle = createLifecycle({
    settings: () => settings,
    service: (account) => clientService(credentialsFor(settings, account)),
    sleep: () => Promise.resolve(),
  });
  const entries: DriftEntry[] = [];
  for (const resource of audienceResources(document)) {
    const inputs = reveal(resource.inputs ?? {}) as Record<string, unknown>;
    const outputs = reveal(resource.outputs ?? {}) as Record<string, unknown>;
    const entry: DriftEntry = {
      name: resource.urn.split("::").at(-1) ?? resource.urn,
      kind: resource.type.slice(TYPE_PREFIX.length),
      id: resource.id!,
      account: typeof inputs.account === "string" ? inputs.account : "(default)",
      status: "in sync",
      members: [],
    };
    try {
      const read = await lifecycle.read(entry.id, outputs);
      if (!read.id) {
        entry.status = "gone";
      } else {
        // Members the export holds encrypted cannot be compared (export with --show-secrets to include them).
        const hidden = Object.keys(inputs).filter((k) => inputs[k] === HIDDEN);
        const changed = (await compare(read.props ?? {}, inputs)).changed.filter((k) => !hidden.includes(k));
        if (changed.length > 0) Object.assign(entry, { status: "drifted", members: changed });
        else if (hidden.length > 0) entry.message = `not compared (encrypted): ${hidden.join(", ")}`;
      }
    } catch (error) {
      Object.assign(entry, { status: "failed", message: (error as Error).message });
    }
    entries.push(entry);
  }
  return entries;
}

async function readJson(file: string, what: string): Promise<unknown> {
  const text = file === "-" ? await new Promise<string>((resolve, reject) => {
    let data = "";
    process.stdin.setEncoding("utf8").on("data", (c: string) => { data += c; }).on("end", () => resolve(data)).on("error", reject);
  }) : await readFile(file, "utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} ${file} is not JSON`);
  }
}

export function register(program: Command): void {
  program
    .command("drift")
    .description("Report audience resources changed outside the program, from a `pulumi stack export --show-secrets` file")
    .argument("<state>", "the stack export (JSON), or - to read it from stdin")
    .option("--accounts <file>", "JSON map of account name -> {apiKey, baseUrl} for resources with an `account` input")
    .option("--json", "print the report as JSON")
    .action(async (file: string, options: { accounts?: string; json?: boolean }) => {
      try {
        const document = await readJson(file, "stack export");
        const accounts = options.accounts !== undefined ? await readJson(options.accounts, "accounts file") : undefined;
        const settings = readSettings((key) => (key === "audience:accounts" ? accounts : undefined));
        const entries = await detectDrift(document, settings);
        if (options.json) {
          console.log(JSON.stringify(entries, null, 2));
        } else {
          const table = new Table({ head: ["resource", "kind", "account", "status", "members"] });
          for (const e of entries) table.push([e.name, e.kind, e.account, e.status, e.message ?? e.members.join(", ")]);
          console.log(entries.length === 0 ? "no audience resources in this stack" : table.toString());
        }
        // 2 when something drifted or is gone: a CI step can fail on it.
        process.exitCode = entries.some((e) => e.status !== "in sync") ? 2 : 0;
      } catch (error) {
        console.error(`audience drift: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    });
}
