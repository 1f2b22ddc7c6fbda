// The states `audience drift` compares with the service, resources of both faces (dynamic and native): the local
// engine's state files and `pulumi stack export` documents (same layout), their secrets opened with the passphrase
// or revealed by `--show-secrets`.
import { glob, readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { z } from "zod";
import { readBackOutputKeys } from "pulumi-audience/provider";
import { isObject } from "pulumi-audience/sdk/contract";
import { PassphraseCrypter } from "../../engine/secrets.ts";
import { urnProject, urnStack } from "../../engine/urn.ts";
import { derivedNames, perFamily, providerFamilies, type ProviderFamily } from "../../runtime/families/index.ts";
import { DYNAMIC_TYPE_PREFIX, KIND_KEY } from "../../runtime/markers.ts";
import { familyNamed, withFamily } from "../../runtime/resources/shim.ts";
import { programNamed } from "../../plugin/names.ts";
import { nativeFamily, PROVIDER_TYPE } from "../../plugin/tokens.ts";
import { SECRET_SIG, SIG_KEY } from "../../protocol/markers.ts";
import type { PropertyMap } from "../../protocol/values.ts";
import { programAbove, programBelowCwd } from "./program-dir.ts";

export type Props = Record<string, unknown>;

/** One audience resource a state records. */
export interface StateResource {
  /** The state file it comes from. */
  file: string;
  urn: string;
  /** Class name: Scope, Target, ... */
  type: string;
  collection: string;
  name: string;
  id: string;
  /** Entry of `audience:accounts`; undefined for the default account. */
  account: string | undefined;
  /** Inputs as the program declared them (check's form), secrets opened. */
  inputs: Props;
  /** Of the recorded outputs, only the members the comparison of a listed document reads (controls, extra inputs):
   * the whole outputs are read again from the file by `outputs()`, for the few resources the provider reads. */
  recorded: Props;
  /** The recorded outputs whole, read again from the state file. */
  outputs(this: StateResource): Promise<Props>;
  /** Names of what the service made for it (a dataset's streams), by collection. */
  made: ReadonlyMap<string, ReadonlySet<string>>;
  /** Members whose value the state holds encrypted and could not be opened, with why. */
  sealed: readonly { path: string; reason: string }[];
  /** Paths of values the state keeps secret (shown as `[secret]`). */
  secretPaths: readonly string[];
  ignoreChanges: readonly string[];
  /** `file:line:column` of the declaration, when the state records it. */
  declaredAt?: { file: string; line: number; column: number };
  /** Read with `.get()`: the program does not manage it. */
  external: boolean;
  /** A native resource's provider (`audience:index:*`): its reference and the configuration it records. */
  provider?: ProviderConfig;
}

/** The configuration a provider resource records (`apiKey`, `baseUrl`, `accounts`), its secrets opened. */
export interface ProviderConfig {
  /** `<urn>::<id>`, as its resources name it. */
  ref: string;
  config: Props;
  /** Members held encrypted that could not be opened, with why. */
  sealed: { path: string; reason: string }[];
}

/** A resource's key in the scan: its family's collection and its id. */
export const resourceKey = (collection: string, id: string): string => `${collection}\0${id}`;

export interface LoadedState {
  file: string;
  /** The stack as its resources name it (`dev`), and its project (undefined for a state with no resource). */
  stack: string;
  project: string | undefined;
  /** The program's directory (its project's `Pulumi.yaml`), when found above the state or below the current directory. */
  program: string | undefined;
  /** Where the stack's `Pulumi.<stack>.yaml` is looked for, in this order: the program's directory, the state's. */
  configDirs: readonly string[];
  resources: StateResource[];
}

export class InputError extends Error {
  override name = "InputError";
}

const document = z.object({
  version: z.literal(3, { error: "must be 3" }),
  deployment: z.object({
    secrets_providers: z.object({ type: z.string(), state: z.unknown().optional() }).optional(),
    resources: z.array(z.object({ urn: z.string().startsWith("urn:pulumi:"), type: z.string() }).loose()).default([]),
  }).loose(),
}).loose();

type StateDocument = z.output<typeof document>;

/** What `document` accepts, told by one walk that copies nothing. */
function wellFormed(value: unknown): value is { version: 3; deployment: Omit<StateDocument["deployment"], "resources"> & { resources?: StateDocument["deployment"]["resources"] } } {
  if (!isObject(value) || value.version !== 3 || !isObject(value.deployment)) return false;
  const { secrets_providers: providers, resources } = value.deployment;
  if (providers !== undefined && !(isObject(providers) && typeof providers.type === "string")) return false;
  if (resources === undefined) return true;
  return Array.isArray(resources) && resources.every((r) => isObject(r) && typeof r.urn === "string" && r.urn.startsWith("urn:pulumi:") && typeof r.type === "string");
}

/** Expands globs; a pattern matching nothing is an error (a typo must not pass as "no drift"). */
export async function expandStates(patterns: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (!/[*?[{]/.test(pattern)) {
      files.push(resolve(pattern));
      continue;
    }
    const matched: string[] = [];
    for await (const file of glob(pattern)) matched.push(resolve(file));
    if (matched.length === 0) throw new InputError(`--state ${pattern}: no file matches`);
    files.push(...matched.sort());
  }
  return [...new Set(files)];
}

/** How secrets of one state are opened. */
interface Opener {
  open(ciphertext: string): unknown;
  /** Why a ciphertext cannot be opened, when it cannot. */
  problem?: string;
}

async function opener(providers: { type: string; state?: unknown } | undefined, passphrase: string | undefined): Promise<Opener> {
  const salt = isObject(providers?.state) && typeof providers.state.salt === "string" ? providers.state.salt : undefined;
  const refuse = (problem: string): Opener => ({ open: () => undefined, problem });
  if (providers?.type !== "passphrase" || salt === undefined) {
    return refuse(`encrypted by the ${providers?.type ?? "unknown"} secrets provider: export the stack with --show-secrets`);
  }
  if (passphrase === undefined) return refuse("encrypted: set PULUMI_CONFIG_PASSPHRASE, or export the stack with --show-secrets");
  try {
    const crypter = await PassphraseCrypter.open(passphrase, salt);
    return { open: (ciphertext) => JSON.parse(crypter.decrypt(ciphertext)) };
  } catch (error) {
    return refuse((error as Error).message);
  }
}

function joinPath(prefix: string, key: string | number): string {
  return typeof key === "number" ? `${prefix}[${key}]` : prefix === "" ? key : `${prefix}.${key}`;
}

/** Where `reveal` notes what it found; none when the caller keeps only the values. */
interface Found {
  secretPaths: string[];
  sealed: { path: string; reason: string }[];
}

/**
 * Reveals a state's values: secrets become their plaintext (their paths noted), unopenable ones are noted and
 * left out. `ownWrapping` names top-level members that hold a credential inside, which states written by earlier
 * versions wrapped whole: the contract's secret paths mark what is secret within them.
 */
function reveal(value: unknown, path: string, found: Found | undefined, opener: Opener, ownWrapping: readonly string[]): unknown {
  if (Array.isArray(value)) {
    if (!value.some((v) => typeof v === "object" && v !== null)) return value; // nothing inside can be secret
    const revealed = value.map((v, i) => reveal(v, joinPath(path, i), found, opener, ownWrapping));
    return revealed.every((v, i) => v === value[i]) ? value : revealed;
  }
  if (!isObject(value)) return value;
  if (value[SIG_KEY] === SECRET_SIG) {
    let inner: unknown;
    if ("value" in value) inner = value.value;
    else if (typeof value.plaintext === "string") inner = JSON.parse(value.plaintext);
    else if (typeof value.ciphertext === "string") {
      try {
        inner = opener.open(value.ciphertext);
      } catch (error) {
        // A damaged ciphertext is this member's problem: the resource is reported unknown, the rest compared.
        found?.sealed.push({ path, reason: (error as Error).message });
        return undefined;
      }
    }
    if (inner === undefined) {
      found?.sealed.push({ path, reason: opener.problem ?? "held encrypted" });
      return undefined;
    }
    if (found && !(ownWrapping.includes(path) && isObject(inner))) found.secretPaths.push(path);
    return reveal(inner, path, found, opener, ownWrapping);
  }
  // Copied only where something inside was revealed: most values hold no secret. (`for in` lists no array of keys:
  // a state's parsed values have only their own members.)
  let copy: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = value[k];
    if (typeof v !== "object" || v === null) continue;
    const revealed = reveal(v, joinPath(path, k), found, opener, ownWrapping);
    if (revealed === v) continue;
    copy ??= { ...value };
    if (revealed === undefined) delete copy[k];
    else copy[k] = revealed;
  }
  return copy ?? value;
}

/**
 * `project:///index.ts#12,5` (Pulumi's form, resolved against the program's directory), `file:///...#12,5`, or
 * `project:///file:/abs/index.ts#12,5` (what the Pulumi CLI records for a program run as an ES module).
 */
function declaredAt(position: unknown, programDir: () => string | undefined): StateResource["declaredAt"] {
  if (typeof position !== "string") return undefined;
  const m = /^(project|file):\/\/(.*)#(\d+)(?:,(\d+))?$/.exec(position);
  if (!m) return undefined;
  const inProject = m[1] === "project" ? m[2]!.replace(/^\/+/, "") : undefined;
  const absolute = inProject === undefined ? m[2]! : inProject.startsWith("file:") ? inProject.slice("file:".length).replace(/^\/*/, "/") : undefined;
  if (absolute !== undefined) return { file: decodeURIComponent(absolute), line: Number(m[3]), column: Number(m[4] ?? 1) };
  const dir = programDir();
  return dir === undefined ? undefined : { file: resolve(dir, inProject!), line: Number(m[3]), column: Number(m[4] ?? 1) };
}

/** Shared by every resource that keeps nothing of a kind: a state holds tens of thousands of resources, and
 * each empty member kept apart would be one more object for the collector to move. */
const NONE: Props = Object.freeze({});
const NO_PATHS: readonly string[] = Object.freeze([]);
const NO_SEALED: StateResource["sealed"] = Object.freeze([]);

/** The outputs a resource keeps beside its inputs: those `readsBack` reads. */
function kept(providerFamily: ProviderFamily, outputs: Props): Props {
  let picked: Props | undefined;
  for (const key of readBackOutputKeys(providerFamily)) if (outputs[key] !== undefined) (picked ??= {})[key] = outputs[key];
  return picked ?? NONE;
}

/** A state file parsed and checked, with what opens its secrets. */
async function readDocument(file: string, passphrase: string | undefined): Promise<{ deployment: StateDocument["deployment"]; open: Opener }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new InputError(`--state ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InputError(`--state ${file}: not JSON; expected a state file of \`audience run\` (.audience/state/<stack>.json) or \`pulumi stack export\``);
  }
  // A well-formed state (the usual case) is taken as parsed; the schema, which copies every resource, only
  // names what is wrong with the others.
  let deployment: StateDocument["deployment"];
  if (wellFormed(parsed)) {
    deployment = { ...parsed.deployment, resources: parsed.deployment.resources ?? [] };
  } else {
    const checked = document.safeParse(parsed);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const where = issue?.path.map(String).join(".") || "(document)";
      throw new InputError(`--state ${file}: neither a state file of \`audience run\` nor a \`pulumi stack export\` document (${where}: ${issue?.message ?? "unexpected"})`);
    }
    deployment = checked.data.deployment;
  }
  return { deployment, open: await opener(deployment.secrets_providers, passphrase) };
}

/**
 * How a state entry of this provider is read: its family, and its recorded values in the lifecycle's form. A
 * dynamic resource's are that form already (its family named by `__kind` or its shim); a native one
 * (`audience:index:<ClassName>`) names its family by its type and its operators as the package schema does.
 */
interface Entry {
  providerFamily: ProviderFamily;
  inputs(values: Props): Props;
  outputs(values: Props): Props;
}

const unchanged = (values: Props): Props => values;

/** How a dynamic resource of the family is read (one per family). */
const dynamicEntry = perFamily((providerFamily): Entry => ({ providerFamily, inputs: withFamily, outputs: unchanged }));

/** How a native resource of the family is read (one per family). */
const nativeEntry = perFamily((providerFamily): Entry => {
  const { create, response, collection } = providerFamily.family;
  return {
    providerFamily,
    inputs: (values) => ({ ...programNamed(create, values as PropertyMap), [KIND_KEY]: collection }),
    outputs: (values) => ({ ...programNamed(response, values as PropertyMap), [KIND_KEY]: collection }),
  };
});

/** The entry's reading, when it is a resource of this provider and the scan compares it. */
function entryOf(raw: Props): Entry | undefined {
  if (typeof raw.id !== "string" || raw.id === "" || raw.delete === true) return undefined;
  const type = String(raw.type);
  if (type.startsWith(DYNAMIC_TYPE_PREFIX)) {
    const collection = isObject(raw.inputs) ? familyNamed(raw.inputs) : undefined;
    const providerFamily = collection !== undefined ? providerFamilies[collection] : undefined; // undefined: not a family of this provider (or a damaged entry)
    return providerFamily && dynamicEntry(providerFamily);
  }
  const providerFamily = nativeFamily(type);
  return providerFamily && nativeEntry(providerFamily);
}

/** What a resource of a family that derives nothing made: one shared empty map. */
const NOTHING_MADE: ReadonlyMap<string, ReadonlySet<string>> = new Map();

/** The top-level members that hold a family's secret outputs (one list per family). */
const secretHolders: (providerFamily: ProviderFamily) => readonly string[] =
  perFamily((providerFamily) => providerFamily.secretOutputs.map((path) => path.split(".")[0]!));

/** The state's providers of this package (default and explicit), by the reference their resources give. */
function providerConfigs(resources: Props[], open: Opener): Map<string, ProviderConfig> {
  const found = new Map<string, ProviderConfig>();
  for (const raw of resources) {
    if (raw.type !== PROVIDER_TYPE || typeof raw.id !== "string") continue;
    const ref = `${String(raw.urn)}::${raw.id}`;
    const sealed: ProviderConfig["sealed"] = [];
    const config = reveal(isObject(raw.inputs) ? raw.inputs : {}, "", { secretPaths: [], sealed }, open, []) as Props;
    found.set(ref, { ref, config, sealed });
  }
  return found;
}

/**
 * A state's resources, each keeping its inputs and of its outputs only what the comparison reads first: the
 * parsed document is dropped once read, and read again only for a resource the provider must read.
 */
export async function loadState(file: string, passphrase: string | undefined): Promise<LoadedState> {
  const { deployment, open } = await readDocument(file, passphrase);
  const first = deployment.resources[0]?.urn;
  const project = first === undefined ? undefined : urnProject(first);
  // The program: above the state, else below the current directory (a job that exports its stacks to `states/`);
  // with neither, a position names no file rather than one that is not there. The stack's config is the program's,
  // else the one beside the state.
  const program = programAbove(file, project) ?? (project === undefined ? undefined : programBelowCwd(project));
  const programDir = () => program;
  const stack = first === undefined ? basename(file, ".json") : urnStack(first);
  let reread: Promise<Map<string, Props>> | undefined;
  // One function for every resource of the state, which it calls as its own method.
  async function recordedOutputs(this: StateResource): Promise<Props> {
    // Read once per file, and only when a resource of it needs the provider's read.
    reread ??= readDocument(file, passphrase).then(({ deployment: again, open: opened }) => {
      const all = new Map<string, Props>();
      for (const raw of again.resources as Props[]) {
        const entry = entryOf(raw);
        if (entry) all.set(String(raw.urn), entry.outputs(reveal(raw.outputs ?? {}, "", undefined, opened, secretHolders(entry.providerFamily)) as Props));
      }
      return all;
    });
    return (await reread).get(this.urn) ?? {};
  }
  const providers = providerConfigs(deployment.resources as Props[], open);
  const resources: StateResource[] = [];
  // What reveal finds in a resource's inputs, handed to the resource when anything was found.
  let found: Found = { secretPaths: [], sealed: [] };
  for (const raw of deployment.resources as Props[]) {
    const entry = entryOf(raw);
    if (!entry) continue;
    const { providerFamily } = entry;
    const urn = String(raw.urn);
    const holders = secretHolders(providerFamily);
    // Named by its shim alone (what a `.get()` records), it is compared as its family all the same.
    const inputs = entry.inputs(reveal(raw.inputs ?? {}, "", found, open, holders) as Props);
    const outputs = isObject(raw.outputs) ? raw.outputs : {};
    const made = providerFamily.derives ? derivedNames([{ providerFamily, outputs: entry.outputs(reveal(outputs, "", undefined, open, holders) as Props) }]) : NOTHING_MADE;
    const provider = typeof raw.provider === "string" ? providers.get(raw.provider) : undefined;
    const position = declaredAt(raw.sourcePosition, programDir);
    const id = raw.id as string;
    const recorded = kept(providerFamily, outputs);
    const { sealed, secretPaths } = found;
    if (sealed.length > 0 || secretPaths.length > 0) found = { secretPaths: [], sealed: [] };
    const resource: StateResource = {
      file,
      urn,
      type: providerFamily.family.className,
      collection: providerFamily.family.collection,
      name: urn.slice(urn.lastIndexOf("::") + 2),
      id,
      account: typeof inputs.account === "string" ? inputs.account : undefined,
      inputs,
      recorded: recorded === NONE ? NONE : (reveal(recorded, "", undefined, open, holders) as Props),
      outputs: recordedOutputs,
      made,
      sealed: sealed.length > 0 ? sealed : NO_SEALED,
      secretPaths: secretPaths.length > 0 ? secretPaths : NO_PATHS,
      ignoreChanges: Array.isArray(raw.ignoreChanges) ? raw.ignoreChanges.filter((p): p is string => typeof p === "string") : NO_PATHS,
      external: raw.external === true,
    };
    if (position) resource.declaredAt = position;
    if (provider) resource.provider = provider;
    resources.push(resource);
  }
  return { file, stack, project, program, configDirs: [...new Set([program ?? dirname(file), dirname(file)])], resources };
}
