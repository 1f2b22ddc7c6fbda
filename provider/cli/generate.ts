// `audience generate`: writes a Pulumi program that adopts an account's existing resources (`adoptId`), declaring
// each as it is now, with references between them as code. Applying it changes nothing; from then on the account
// is managed as code.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AudienceClient } from "pulumi-audience/sdk/client";
import { families, fromWire, SECRET_PLACEHOLDER, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import { providerFamilies } from "../runtime/families/index.ts";
import { credentialsFor, readSettings, type Settings } from "../runtime/lifecycle/settings.ts";
import { canonical } from "../runtime/lifecycle/shape.ts";

type Doc = Record<string, unknown>;

/** Families in an order where everything a resource references comes before it. */
function dependencyOrder(collections: string[]): string[] {
  const ordered: string[] = [];
  const visit = (c: string, path: string[]) => {
    if (ordered.includes(c) || path.includes(c)) return;
    const family = (families as Record<string, FamilyDef>)[c];
    for (const ref of family?.references ?? []) if (collections.includes(ref.collection)) visit(ref.collection, [...path, c]);
    ordered.push(c);
  };
  for (const c of collections) visit(c, []);
  return ordered;
}

function identifier(text: string, taken: Set<string>): string {
  const base = text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").replace(/^(\d)/, "_$1") || "resource";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** Prints a value as a TypeScript expression; strings naming generated resources become `<variable>.id`. */
function print(value: unknown, refer: (s: string) => string | undefined, indent: string): string {
  if (typeof value === "string") return refer(value) ?? JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => print(v, refer, indent)).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const inner = `${indent}  `;
    const members = Object.entries(value).map(([k, v]) => `${inner}${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${print(v, refer, inner)},`);
    return members.length ? `{\n${members.join("\n")}\n${indent}}` : "{}";
  }
  return JSON.stringify(value);
}

export interface GenerateOptions {
  /** Entry of `audience:accounts` to read (and to name in the program); the default account when absent. */
  account?: string;
  /** Collections to include; every creatable family when absent. */
  collections?: string[];
}

/** The program's source: one resource per existing (unmanaged, unarchived) resource, adopted by id. */
export async function generateProgram(settings: Settings, options: GenerateOptions = {}): Promise<string> {
  const client = new AudienceClient(credentialsFor(settings, options.account));
  const wanted = options.collections ?? Object.keys(providerFamilies).filter((c) => providerFamilies[c]!.family.creatable && !providerFamilies[c]!.family.singleton);
  const unknown = wanted.filter((c) => !providerFamilies[c]);
  if (unknown.length) throw new Error(`unknown collections ${unknown.join(", ")}; known: ${Object.keys(providerFamilies).join(", ")}`);
  const taken = new Set(["pulumi", "audience", "config"]);
  const variables = new Map<string, string>();
  const secrets: string[] = [];
  const blocks: string[] = [];
  try {
    const current = (await client.request({ method: "GET", path: "/accounts/current" })) as Doc;
    for (const collection of dependencyOrder(wanted)) {
      const kind = providerFamilies[collection]!;
      const listed = (await client.list(collection as Collection)) as Doc[];
      for (const doc of listed) {
        // The service's own (classic cohorts), retired ones, and the account of the key itself are not adopted.
        if (doc.managed === true || doc.archived_at != null || doc.id === current.id) continue;
        const id = String(doc.id);
        const variable = identifier(`${kind.family.className}_${String(doc.name ?? id)}`, taken);
        const config = fromWire(kind.family.create, canonical(kind.family.create, doc)) as Doc;
        const refer = (s: string) => {
          if (s === SECRET_PLACEHOLDER) return undefined;
          const target = variables.get(s);
          return target !== undefined ? `${target}.id` : undefined;
        };
        // Credentials are never answered: the program reads them from secret config.
        const withSecrets = JSON.parse(JSON.stringify(config), (key, value: unknown) => {
          if (value !== SECRET_PLACEHOLDER) return value;
          const configKey = `${variable}_${key}`;
          secrets.push(configKey);
          return `\u0000secret:${configKey}`;
        }) as Doc;
        const args = { ...(options.account ? { account: options.account } : {}), adoptId: id, ...withSecrets };
        const body = print(args, (s) => (s.startsWith("\u0000secret:") ? `config.requireSecret(${JSON.stringify(s.slice(8))})` : refer(s)), "");
        blocks.push(`export const ${variable} = new audience.${kind.family.className}(${JSON.stringify(variable.replace(/_/g, "-"))}, ${body});`);
        variables.set(id, variable);
      }
    }
  } finally {
    await client.close();
  }
  const header = [
    "// Generated by `audience generate`: the account's resources as they are, adopted by id. Review, then `pulumi up`",
    "// (nothing changes on the first run); from then on edit this program to change the account.",
    ...(secrets.length ? [`// Secret config to set first: ${secrets.map((s) => `pulumi config set --secret ${s} ...`).join("; ")}`] : []),
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as audience from "pulumi-audience";',
    "",
    secrets.length ? "const config = new pulumi.Config();" : "void pulumi;",
    "",
  ];
  return `${[...header, ...blocks].join("\n")}\n`;
}

export interface GenerateFlags {
  out?: string;
  name: string;
  only?: string;
}

/** Prints the program, or writes it with a Pulumi.yaml into `--out`. */
export async function runGenerateCommand(options: GenerateFlags): Promise<void> {
  try {
    const settings = readSettings(() => undefined);
    const source = await generateProgram(settings, options.only ? { collections: options.only.split(",").map((c) => c.trim()) } : {});
    if (options.out === undefined) {
      process.stdout.write(source);
      return;
    }
    await mkdir(options.out, { recursive: true });
    await writeFile(join(options.out, "index.ts"), source);
    await writeFile(join(options.out, "Pulumi.yaml"), `name: ${options.name}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\n`);
    console.log(`wrote ${join(options.out, "index.ts")} and Pulumi.yaml`);
  } catch (error) {
    console.error(`audience generate: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
