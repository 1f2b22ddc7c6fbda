// `audience generate`: writes a Pulumi program that adopts an account's existing resources (`adoptId`, protected),
// declaring each as a person would (members left at their defaults are left out), with references between them
// as code. Applying it changes nothing; from then on the account is managed as code.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { AudienceClient } from "pulumi-audience/sdk/client";
import { families, fromWire, isObject, jsonEqual, SECRET_PLACEHOLDER, splitUploadSubpath, type FamilyDef } from "pulumi-audience/sdk/contract";
import { derivedNames, providerFamilies } from "../runtime/families/index.ts";
import { credentialsFor, readSettings, type Settings } from "../runtime/lifecycle/settings.ts";
import { canonical } from "../runtime/lifecycle/shape.ts";
import { adoptable, ADOPTABLE } from "./adoptable.ts";
import { accountsConfig, readAccountsFile } from "./drift/accounts.ts";
import { dependencyFor, thisPackage } from "./dependency.ts";
import { scaffoldFiles } from "./new.ts";
import { shellWord } from "../engine/stack-files.ts";

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
  // Letters with accents keep their letter ("Élite" is elite), as far as Unicode decomposes them.
  const plain = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const base = plain.replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").replace(/^(\d)/, "_$1") || "resource";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** What names a resource that has no name but a URL (a webhook endpoint): its host and path. */
function urlWords(url: unknown): string | undefined {
  if (typeof url !== "string" || !URL.canParse(url)) return undefined;
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
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

/** The wire members that say something: each one whose removal would change the resource (defaults left out). */
function essential(create: FamilyDef["create"], wire: Doc): Doc {
  const full = canonical(create, wire);
  let current = structuredClone(wire);
  const visit = (path: string[]) => {
    const node = path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), current);
    if (!isObject(node)) return;
    for (const key of Object.keys(node)) {
      const trial = structuredClone(current);
      delete (path.reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), trial) as Doc)[key];
      if (jsonEqual(canonical(create, trial), full)) current = trial;
      else visit([...path, key]);
    }
  };
  visit([]);
  return current;
}

export interface GenerateOptions {
  /** Entry of `audience:accounts` to read (and to name in the program); the default account when absent. */
  account?: string;
  /** Collections to include; every adoptable family when absent. */
  collections?: string[];
  /**
   * Include the account's uploaded files: each is saved through this function (path relative to the program) and
   * declared with that `source`. Left out unless asked: applying the program sends each file again.
   */
  saveUpload?: (path: string, bytes: Uint8Array) => Promise<void>;
}

/** Files, adopted only when asked: their bytes are downloaded and sent again by the first `up`. */
const UPLOADS = "uploads";

/** A generated program: its source, and the secret config keys it reads (one per credential the service keeps). */
export interface GeneratedProgram {
  source: string;
  secretConfig: string[];
}

/**
 * The program: one resource per existing resource a program may own, adopted by id and protected (as
 * `pulumi import` does) so that a later `destroy` cannot delete what was only brought under code.
 */
export async function generateProgram(settings: Settings, options: GenerateOptions = {}): Promise<GeneratedProgram> {
  const client = new AudienceClient(credentialsFor(settings, options.account));
  const wanted = options.collections ?? [...ADOPTABLE.map((k) => k.family.collection), ...(options.saveUpload ? [UPLOADS] : [])];
  const unknown = wanted.filter((c) => !providerFamilies[c]);
  if (unknown.length) throw new Error(`--only: unknown collections ${unknown.join(", ")}; known: ${Object.keys(providerFamilies).join(", ")}`);
  const refused = wanted.filter((c) => !adoptable(providerFamilies[c]!) && !(c === UPLOADS && options.saveUpload));
  if (refused.length) throw new Error(`--only: ${refused.join(", ")} cannot be adopted by a program (${ADOPTABLE.map((k) => k.family.collection).join(", ")} can; uploads with --uploads)`);
  const taken = new Set(["pulumi", "audience", "config", "ids"]);
  const variables = new Map<string, string>();
  const secrets: string[] = [];
  const lookups: string[] = [];
  const blocks: string[] = [];
  const account = options.account ? { account: options.account } : {};
  try {
    const current = (await client.request({ method: "GET", path: "/accounts/current" })) as Doc;
    const lists = new Map<string, Promise<Doc[]>>();
    const listOf = (collection: string) => {
      if (!lists.has(collection)) lists.set(collection, client.list(providerFamilies[collection]!.family) as Promise<Doc[]>);
      return lists.get(collection)!;
    };
    // What the service made for adopted resources (a dataset's streams) comes along with its maker.
    const makers = await Promise.all(wanted.filter((c) => providerFamilies[c]!.derives).map(async (c) => {
      const providerFamily = providerFamilies[c]!;
      return (await listOf(c)).filter((doc) => doc.archived_at == null).map((doc) => ({ providerFamily, outputs: fromWire(providerFamily.family.response, doc) as Doc }));
    }));
    const made = derivedNames(makers.flat());
    // What the service made on its own (classic cohorts, forecasts) is referenced through a lookup by name, which
    // holds in any account, never by this account's id.
    const serviceMade = new Map<string, { family: FamilyDef; doc: Doc; unique: boolean }>();
    const referenced = new Set(wanted.flatMap((c) => providerFamilies[c]!.family.references.map((r) => r.collection)));
    for (const collection of referenced) {
      const family = (families as Record<string, FamilyDef>)[collection];
      if (!family || family.noLookup !== undefined) continue;
      const docs = await listOf(collection);
      for (const doc of docs) {
        if (doc.managed !== true && family.creatable) continue;
        serviceMade.set(String(doc.id), { family, doc, unique: docs.filter((d) => d.name === doc.name).length === 1 });
      }
    }
    const lookedUp = new Map<string, string>();
    const lookup = (id: string): string | undefined => {
      const found = serviceMade.get(id);
      if (!found) return undefined;
      let variable = lookedUp.get(id);
      if (variable === undefined) {
        const { family, doc, unique } = found;
        variable = identifier(`${family.className}_${String(doc.name ?? id)}`, taken);
        // By name where the name is the account's only one of it; else by id, the one thing that tells them apart.
        const by = unique && typeof doc.name === "string" ? { name: doc.name } : { id };
        const args = Object.entries({ ...by, ...account }).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ");
        lookups.push(`const ${variable} = audience.get${family.className}Output({ ${args} });`);
        lookedUp.set(id, variable);
      }
      return variable;
    };
    for (const collection of dependencyOrder(wanted)) {
      const providerFamily = providerFamilies[collection]!;
      const listed = await listOf(collection);
      for (const doc of listed) {
        // The service's own (classic cohorts), retired ones, what it made for others, and the key's account are not adopted.
        if (doc.managed === true || doc.archived_at != null || doc.id === current.id || made.get(collection)?.has(String(doc.name))) continue;
        if (collection === UPLOADS) {
          const subpath = String(doc.subpath);
          const { directory, filename } = splitUploadSubpath(subpath);
          const path = `uploads/${subpath}`;
          await options.saveUpload!(path, await client.download(directory, filename));
          const variable = identifier(`${providerFamily.family.className}_${filename}`, taken);
          const args = { ...account, directory, filename, source: path };
          blocks.push(`const ${variable} = new audience.${providerFamily.family.className}(${JSON.stringify(variable.replace(/_/g, "-"))}, ${print(args, () => undefined, "")}, { protect: true });`);
          variables.set(subpath, variable);
          continue;
        }
        const id = String(doc.id);
        const variable = identifier(`${providerFamily.family.className}_${String(doc.name ?? urlWords(doc.url) ?? id)}`, taken);
        const members = fromWire(providerFamily.family.create, essential(providerFamily.family.create, canonical(providerFamily.family.create, doc) as Doc)) as Doc;
        const refer = (s: string) => {
          if (s === SECRET_PLACEHOLDER) return undefined;
          const target = variables.get(s) ?? lookup(s);
          return target !== undefined ? `${target}.id` : undefined;
        };
        // Credentials are never answered: the program reads them from secret config.
        const withSecrets = JSON.parse(JSON.stringify(members), (key, value: unknown) => {
          if (value !== SECRET_PLACEHOLDER) return value;
          const configKey = `${variable}_${key}`;
          secrets.push(configKey);
          return `\u0000secret:${configKey}`;
        }) as Doc;
        const args = { ...account, adoptId: id, ...withSecrets };
        const body = print(args, (s) => (s.startsWith("\u0000secret:") ? `config.requireSecret(${JSON.stringify(s.slice(8))})` : refer(s)), "");
        blocks.push(`const ${variable} = new audience.${providerFamily.family.className}(${JSON.stringify(variable.replace(/_/g, "-"))}, ${body}, { protect: true });`);
        variables.set(id, variable);
      }
    }
  } finally {
    await client.close();
  }
  const exported = [...variables.values()];
  const header = [
    "// Generated by `audience generate`: the account's resources as they are, adopted by id and protected. Review,",
    "// then `pulumi up` (the first run changes nothing but sending each credential once, as a create would); from",
    "// then on edit this program to change the account.",
    "// `protect: true` keeps `destroy` from deleting them: remove it from a resource the program may delete.",
    ...(secrets.length ? [`// Secret config to set first: ${secrets.map((s) => `pulumi config set --secret ${s} ...`).join("; ")}`] : []),
    'import * as pulumi from "@pulumi/pulumi";',
    'import * as audience from "pulumi-audience";',
    "",
    secrets.length ? "const config = new pulumi.Config();" : "void pulumi;",
    "",
    ...(lookups.length ? [...lookups, ""] : []),
  ];
  const footer = exported.length ? ["", `export const ids = {\n${exported.map((v) => `  ${v}: ${v}.id,`).join("\n")}\n};`] : [];
  return { source: `${[...header, ...blocks, ...footer].join("\n")}\n`, secretConfig: secrets };
}

/**
 * What a generated program needs before its first run, as commands: a stack, the key and URL of the account it
 * adopts, and each credential it reads from secret config.
 */
function nextSteps(out: string, settings: Settings, account: string | undefined, secretConfig: readonly string[]): string {
  const key = (member: string) => (account === undefined ? `audience:${member}` : `--path audience:accounts.${account}.${member}`);
  const baseUrl = (account === undefined ? settings.default.baseUrl : settings.accounts[account]?.baseUrl) ?? "https://<service>/v1";
  const steps = [
    `cd ${shellWord(out)} && npm install`,
    "pulumi stack init dev",
    `pulumi config set ${key("baseUrl")} ${shellWord(baseUrl)}${account === undefined ? "   # or AUDIENCE_BASE_URL" : ""}`,
    `pulumi config set --secret ${key("apiKey")} '<KEY>'${account === undefined ? "   # or AUDIENCE_API_KEY" : ""}`,
    ...secretConfig.map((name) => `pulumi config set --secret ${name} '<the credential the service holds>'`),
    "pulumi preview",
  ];
  return `then, to adopt the account:\n${steps.map((step) => `  ${step}`).join("\n")}`;
}

export function register(program: Command): void {
  program
    .command("generate")
    .option("--out <dir>", "write the program to <dir> (index.ts, and package.json, Pulumi.yaml, tsconfig.json where absent) instead of printing it")
    .option("--name <project>", "project name for Pulumi.yaml", "audience-account")
    .option("--only <collections>", "comma-separated collections to include (e.g. cohorts,scopes,targets)")
    .option("--account <name>", "entry of audience:accounts (from --accounts) to read instead of the default account")
    .option("--accounts <file>", 'JSON map of account name -> {"baseUrl", "apiKeyEnv" (or "apiKey")}')
    .option("--uploads", "also adopt uploaded files, saved under <out>/uploads (applying sends each file again)")
    .option("--force", "with --out: replace an index.ts already there")
    .action(async (options: { out?: string; name: string; only?: string; account?: string; accounts?: string; uploads?: boolean; force?: boolean }) => {
      try {
        if (options.uploads && options.out === undefined) throw new Error("--uploads needs --out: the files are saved beside the program");
        // A program already there is the user's: nothing is read from the account before it is known to be kept.
        if (options.out !== undefined && !options.force && existsSync(join(options.out, "index.ts"))) {
          throw new Error(`${join(options.out, "index.ts")} is already there: give another --out, or --force to replace it`);
        }
        const accounts = options.accounts !== undefined ? await readAccountsFile(options.accounts) : {};
        const named = accountsConfig(accounts, process.env);
        const settings = readSettings((key) => (key === "audience:accounts" ? named : undefined));
        // It reads no stack's config (it writes a new program), so a message naming audience:apiKey would mislead.
        const missing = options.account === undefined && (["apiKey", "baseUrl"] as const).filter((k) => settings.default[k] === undefined);
        if (missing && missing.length > 0) {
          throw new Error(`no ${missing.map((k) => (k === "apiKey" ? "API key" : "service URL")).join(" and ")}: generate reads the account from AUDIENCE_API_KEY and AUDIENCE_BASE_URL, `
            + "or another from --accounts with --account; it reads no stack's config");
        }
        const out = options.out;
        const { source, secretConfig } = await generateProgram(settings, {
          ...(options.only ? { collections: options.only.split(",").map((c) => c.trim()) } : {}),
          ...(options.account ? { account: options.account } : {}),
          ...(options.uploads && out !== undefined ? {
            saveUpload: async (path: string, bytes: Uint8Array) => {
              await mkdir(dirname(join(out, path)), { recursive: true });
              await writeFile(join(out, path), bytes);
            },
          } : {}),
        });
        if (out === undefined) {
          process.stdout.write(source);
          return;
        }
        await mkdir(out, { recursive: true });
        await writeFile(join(out, "index.ts"), source);
        // The rest of a program that runs as written (package.json with "type": "module", Pulumi.yaml, tsconfig),
        // as `audience new` makes it; files already there are the user's and are kept.
        const files = scaffoldFiles({ name: options.name, manifest: thisPackage().manifest, dependency: dependencyFor(out) });
        const written = ["index.ts"];
        for (const [file, text] of Object.entries(files)) {
          if (file === "index.ts" || existsSync(join(out, file))) continue;
          await writeFile(join(out, file), text);
          written.push(file);
        }
        console.log(`wrote ${written.map((f) => join(out, f)).join(", ")}`);
        console.log(nextSteps(out, settings, options.account, secretConfig));
      } catch (error) {
        console.error(`audience generate: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    });
}
