// The stack's state file, in the layout of `pulumi stack export`, secrets sealed with the passphrase provider.
// Every save writes a temporary file and renames it over the old one, so a crash never leaves half a state.
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { PassphraseCrypter } from "./secrets.ts";
import type { PropertyMap, Value } from "./values.ts";

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

interface Deployment {
  manifest: { time: string; magic: string; version: string };
  secrets_providers: { type: "passphrase"; state: { salt: string } };
  resources: ResourceState[];
  pending_operations?: PendingOperation[];
}

export class StateError extends Error {
  override name = "StateError";
}

export class StackState {
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
  static async load(path: string, passphrase: string, saltForNewStack?: string): Promise<StackState> {
    let text: string | undefined;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (text === undefined) return new StackState(path, await PassphraseCrypter.open(passphrase, saltForNewStack), [], []);
    let doc: { version?: number; deployment?: Partial<Deployment> };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch (e) {
      throw new StateError(`${path}: not valid JSON (${(e as Error).message}); restore it from a backup or remove it to start over`);
    }
    const deployment = doc.deployment;
    const salt = deployment?.secrets_providers?.state?.salt;
    if (doc.version !== 3 || !deployment || !Array.isArray(deployment.resources) || typeof salt !== "string") {
      throw new StateError(`${path}: not a stack state (expected version 3 with deployment.resources and a passphrase secrets provider)`);
    }
    const crypter = await PassphraseCrypter.open(passphrase, salt);
    const resources = deployment.resources.map((r) => ({
      ...r,
      dependencies: r.dependencies ?? [],
      inputs: crypter.openValue(r.inputs ?? {}) as PropertyMap,
      outputs: crypter.openValue(r.outputs ?? {}) as PropertyMap,
    }));
    const pending = (deployment.pending_operations ?? []).map((op) => ({ ...op, resource: { ...op.resource, inputs: crypter.openValue(op.resource.inputs ?? {}) as PropertyMap } }));
    return new StackState(path, crypter, resources, pending);
  }

  find(urn: string): ResourceState | undefined {
    return this.resources.find((r) => r.urn === urn && !r.delete);
  }

  /** Puts the new state of a resource in place of its old one (or appends it), then saves. */
  upsert(resource: ResourceState): Promise<void> {
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
    const snapshot = this.#serialize();
    this.#writes = this.#writes.catch(() => undefined).then(() => writeAtomically(this.path, snapshot));
    return this.#writes;
  }

  #serialize(): string {
    const seal = (m: PropertyMap) => this.crypter.sealValue(m as Value);
    const deployment: Deployment = {
      manifest: { time: new Date().toISOString(), magic: "", version: "pulumi-audience local engine" },
      secrets_providers: { type: "passphrase", state: { salt: this.crypter.saltState } },
      resources: dependencyOrder(this.resources).map((r) => ({ ...r, inputs: seal(r.inputs) as PropertyMap, outputs: seal(r.outputs) as PropertyMap })),
    };
    if (this.pending.length > 0) deployment.pending_operations = this.pending.map((op) => ({ ...op, resource: { ...op.resource, inputs: seal(op.resource.inputs) as PropertyMap } }));
    return `${JSON.stringify({ version: 3, deployment }, null, 4)}\n`;
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
