// The stack's snapshot: the resources it holds and the operations in flight, kept in the stack's state file in the
// layout of `pulumi stack export`, secrets sealed with the passphrase provider. Every save writes a temporary file
// and renames it over the old one, so a crash never leaves half a state.
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { PassphraseCrypter } from "./secrets.ts";
import { annotateSecrets, markSecret, plaintextSecrets, type PropertyMap, type Value } from "../plugin/values.ts";

export interface ResourceState {
  urn: string;
  custom: boolean;
  type: string;
  id?: string;
  inputs: PropertyMap;
  outputs: PropertyMap;
  parent?: string;
  dependencies: string[];
  propertyDependencies?: Record<string, string[]>;
  provider?: string;
  protect?: boolean;
  retainOnDelete?: boolean;
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs?: string[];
  ignoreChanges?: string[];
  /** Read with `.get()`, not managed: never deleted, only forgotten. */
  external?: boolean;
  /** An old copy waiting to be deleted after its replacement was created. */
  delete?: boolean;
  /** Reasons the provider gave when the resource exists but did not finish initializing. */
  initErrors?: string[];
}

export interface PendingOperation {
  resource: Pick<ResourceState, "urn" | "type" | "inputs"> & { id?: string };
  type: "creating" | "updating" | "deleting";
}

/** The state file; Pulumi names the snapshot in it `deployment`. */
interface StateFile {
  version: 3;
  deployment: {
    manifest: { time: string; magic: string; version: string };
    secrets_providers: { type: "passphrase"; state: { salt: string } };
    resources: ResourceState[];
    pending_operations?: PendingOperation[];
  };
}

export class StateError extends Error {
  override name = "StateError";
}

// The stored layout, checked on load so a damaged file is named, field by field, instead of failing later. Members
// this engine does not use (a `pulumi stack export` has more) pass through untouched.
const propertyMap = z.record(z.string(), z.unknown());
const names = z.array(z.string());
const storedResource = z.looseObject({
  urn: z.string().startsWith("urn:pulumi:"),
  type: z.string(),
  custom: z.boolean().default(false),
  id: z.string().optional(),
  inputs: propertyMap.default({}),
  outputs: propertyMap.default({}),
  parent: z.string().optional(),
  dependencies: names.default([]),
  propertyDependencies: z.record(z.string(), names).optional(),
  provider: z.string().optional(),
  protect: z.boolean().optional(),
  retainOnDelete: z.boolean().optional(),
  deleteBeforeReplace: z.boolean().optional(),
  additionalSecretOutputs: names.optional(),
  ignoreChanges: names.optional(),
  external: z.boolean().optional(),
  delete: z.boolean().optional(),
  initErrors: names.optional(),
});
const storedStateFile = z.looseObject({
  version: z.literal(3),
  deployment: z.looseObject({
    // Without a passphrase salt (an export of another secrets provider made with --show-secrets, or of a stack
    // without secrets) every secret must be in plaintext; they are then sealed with the stack's own salt.
    secrets_providers: z.looseObject({ state: z.looseObject({ salt: z.string().optional() }).optional() }).optional(),
    resources: z.array(storedResource),
    pending_operations: z.array(z.looseObject({
      type: z.enum(["creating", "updating", "deleting"]),
      resource: z.looseObject({ urn: z.string(), type: z.string(), id: z.string().optional(), inputs: propertyMap.default({}) }),
    })).optional(),
  }),
});

function where(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("") || "(document)";
}

export class Snapshot {
  resources: ResourceState[];
  pending: PendingOperation[];
  readonly path: string;
  readonly crypter: PassphraseCrypter;
  #writes: Promise<void> = Promise.resolve();

  private constructor(path: string, crypter: PassphraseCrypter, resources: ResourceState[], pending: PendingOperation[]) {
    this.path = path;
    this.crypter = crypter;
    this.resources = resources;
    this.pending = pending;
  }

  /** Reads the state file, or starts an empty stack whose secrets use the given salt (or a new one). */
  static async load(path: string, passphrase: string, saltForNewStack?: string): Promise<Snapshot> {
    let text: string | undefined;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (text === undefined) return new Snapshot(path, await PassphraseCrypter.open(passphrase, saltForNewStack), [], []);
    return Snapshot.parse(text, { path, passphrase, saltForNewStack });
  }

  /**
   * A state document, as a state file holds it or `pulumi stack export` writes it (secrets as ciphertext, or as
   * plaintext with --show-secrets), to be kept at `path`. `source` names the text in errors (default: path).
   */
  static async parse(text: string, { path, passphrase, saltForNewStack, source = path }: { path: string; passphrase: string; saltForNewStack?: string; source?: string }): Promise<Snapshot> {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new StateError(`${source}: not valid JSON (${(e as Error).message}); restore it from a backup or remove it to start over`);
    }
    const parsed = storedStateFile.safeParse(doc);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 3).map((i) => `${where(i.path)}: ${i.message}`).join("; ");
      throw new StateError(`${source}: not a stack state of version 3 with a passphrase secrets provider (${problems}); restore it from a backup`);
    }
    const { deployment } = parsed.data;
    const crypter = await PassphraseCrypter.open(passphrase, deployment.secrets_providers?.state?.salt ?? saltForNewStack);
    const open = (value: Record<string, unknown>, what: string): PropertyMap => {
      try {
        return crypter.openValue(value as Value) as PropertyMap;
      } catch (e) {
        throw new StateError(`${source}: ${what}: ${(e as Error).message}`);
      }
    };
    const resources = deployment.resources.map((r) => ({
      ...r,
      inputs: open(r.inputs, `${r.urn} inputs`),
      outputs: open(r.outputs, `${r.urn} outputs`),
    })) as ResourceState[];
    const pending = (deployment.pending_operations ?? []).map((op) => ({ ...op, resource: { ...op.resource, inputs: open(op.resource.inputs, `pending ${op.type} of ${op.resource.urn}`) } }));
    return new Snapshot(path, crypter, resources, pending);
  }

  find(urn: string): ResourceState | undefined {
    return this.resources.find((r) => r.urn === urn && !r.delete);
  }

  /**
   * Puts the new state of a resource in place of its old one (or appends it), then saves. `renamed` is its old
   * entry under another URN (an alias), which gives way.
   */
  upsert(resource: ResourceState, renamed?: ResourceState): Promise<void> {
    if (renamed && renamed.urn !== resource.urn) this.resources = this.resources.filter((r) => r !== renamed);
    const at = this.resources.findIndex((r) => r.urn === resource.urn && !r.delete);
    if (at >= 0) this.resources[at] = resource;
    else this.resources.push(resource);
    return this.save();
  }

  remove(resource: ResourceState): Promise<void> {
    this.resources = this.resources.filter((r) => r !== resource);
    return this.save();
  }

  begin(op: PendingOperation): Promise<void> {
    this.pending.push(op);
    return this.save();
  }

  /** Clears a pending operation; the caller saves with its next change. */
  end(op: PendingOperation): void {
    this.pending = this.pending.filter((p) => p !== op);
  }

  /** Queues a write of the whole state; writes happen one at a time, in order. */
  save(): Promise<void> {
    const text = this.#serialize((v) => this.crypter.sealValue(v));
    this.#writes = this.#writes.catch(() => undefined).then(() => writeAtomically(this.path, text));
    return this.#writes;
  }

  /** The state as `pulumi stack export` writes it: secrets encrypted, or in plaintext with showSecrets. */
  export({ showSecrets }: { showSecrets: boolean }): string {
    return this.#serialize((v) => (showSecrets ? plaintextSecrets(v) : this.crypter.sealValue(v)));
  }

  #serialize(sealValue: (v: Value) => Value): string {
    const seal = (m: PropertyMap) => sealValue(m as Value);
    const deployment: StateFile["deployment"] = {
      manifest: { time: new Date().toISOString(), magic: "", version: "pulumi-audience local engine" },
      secrets_providers: { type: "passphrase", state: { salt: this.crypter.saltState } },
      resources: dependencyOrder(this.resources).map((r) => ({ ...r, inputs: seal(r.inputs) as PropertyMap, outputs: seal(r.outputs) as PropertyMap })),
    };
    if (this.pending.length > 0) deployment.pending_operations = this.pending.map((op) => ({ ...op, resource: { ...op.resource, inputs: seal(op.resource.inputs) as PropertyMap } }));
    const file: StateFile = { version: 3, deployment };
    return `${JSON.stringify(file, null, 4)}\n`;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const file = await open(tmp, "w", 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

/** Stable order in which every resource comes after its parent, provider and dependencies. */
export function dependencyOrder(resources: ResourceState[]): ResourceState[] {
  const byUrn = new Map(resources.filter((r) => !r.delete).map((r) => [r.urn, r]));
  const placed = new Set<ResourceState>();
  const out: ResourceState[] = [];
  const visit = (r: ResourceState, path: Set<ResourceState>) => {
    if (placed.has(r) || path.has(r)) return;
    path.add(r);
    for (const urn of prerequisites(r)) {
      const dep = byUrn.get(urn);
      if (dep) visit(dep, path);
    }
    placed.add(r);
    out.push(r);
  };
  for (const r of resources) visit(r, new Set());
  return out;
}

/** Outputs as recorded: secret where the same input (or, on refresh, the old output) was, and where asked. */
export function recordedOutputs(resource: Pick<ResourceState, "inputs" | "additionalSecretOutputs">, outputs: PropertyMap, secretsFrom: PropertyMap = resource.inputs): PropertyMap {
  return markSecret(annotateSecrets(outputs, secretsFrom), resource.additionalSecretOutputs ?? []);
}

/** URNs a resource needs to exist first: parent, provider, dependencies and property dependencies. */
export function prerequisites(r: ResourceState): string[] {
  const urns = [...r.dependencies, ...Object.values(r.propertyDependencies ?? {}).flat()];
  if (r.parent) urns.push(r.parent);
  if (r.provider) urns.push(r.provider.slice(0, r.provider.lastIndexOf("::")));
  return [...new Set(urns)];
}

/** Takes the stack's lock file so two runs never write one state; returns its release. */
export async function lockStack(statePath: string): Promise<() => Promise<void>> {
  const lock = `${statePath}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = await open(lock, "wx");
      await file.writeFile(String(process.pid));
      await file.close();
      return () => rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const owner = Number((await readFile(lock, "utf8").catch(() => "")).trim());
      if (owner && isAlive(owner)) throw new StateError(`the stack is being changed by process ${owner} (lock ${lock}); wait for it, or remove the lock if that process is gone`);
      await rm(lock, { force: true });
    }
  }
  throw new StateError(`cannot take the stack lock ${lock}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
