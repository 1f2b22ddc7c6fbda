// The one check / diff / create / read / update / delete of every resource family, driven by its description;
// a family's own steps (see families/family.ts) stand in for the generic ones where it has them.
// Inputs and outputs are camelCase as a program writes them; the wire is snake_case; the contract converts.
import type * as pulumi from "@pulumi/pulumi";
import {
  accountFeatureErrors, camelKey, families, fromWire, id as serviceId, jsonEqual, mergePatch, toWire, validate, type AccountFeature, type FamilyDef,
} from "pulumi-audience/sdk/contract";
import { derivedNames, familyOf, perFamily, providerFamilies, type ProviderFamily } from "../families/index.ts";
import { createOnce, unlessUnknown } from "./ambiguous.ts";
import { controlsSchema, CONTROL_KEYS, CREATE_STARTED_KEY, DEFAULT_WAIT_TIMEOUT_SECONDS, KIND_KEY, PROVIDER_KEY, STEP_TIMEOUT_KEY, type Controls } from "./controls.ts";
import type { AccountProblem } from "./config-check.ts";
import { FAILURE_CODES, failureCode } from "./failure.ts";
import { type Service } from "./service.ts";
import { canonical, camelPath, isObject, keepSecrets, keepSignedUrls, memberNames, pathsOverlap, readsAsDeclared, unknownPaths, UNKNOWN, wireOf, withoutNulls, type Props } from "./shape.ts";
import { unknownAccount, type Settings } from "./settings.ts";

/** Where the lifecycle gets its settings and its connection to an account. */
export interface Environment {
  settings(): Settings;
  service(account: string | undefined): Service;
  /** Pause between polls of a build; tests shorten it. Rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Tells the user something they should know about a step (a warning); unheard when absent. */
  report?(message: string): void;
  /** Where a build's status goes as it moves (`Target tgt_1: starting`), for the engine's progress display. */
  progress?(message: string): Promise<void> | void;
  /**
   * Why the account's credentials cannot be used (naming the config key), or undefined; asked by check, so a
   * preview fails where the deploy would. Hosts that check their config themselves (the plugin) leave it out.
   */
  accountProblem?(account: string | undefined): Promise<AccountProblem | undefined>;
}

/**
 * Limits a host may put on one create or update: a plugin gets them from the engine's request; under the dynamic
 * host the timeout comes as an input (STEP_TIMEOUT_KEY) and there is no cancellation; the engine's in-process
 * provider passes both.
 */
export interface StepLimits {
  /** The engine's timeout for the step (`customTimeouts`), in seconds; bounds the wait for a build. */
  timeoutSeconds?: number;
  /** Aborted when the engine cancels the operation: the wait for a build stops. */
  signal?: AbortSignal;
}

/** A check's failure; `code` says what kind (failure.ts) when it is not the inputs' own. */
export type CheckFailure = pulumi.dynamic.CheckFailure & { code?: string };

/** One changed property path (camelCase) of a diff; `replace` when the change needs a new resource. */
export interface PathChange {
  path: string;
  change: "add" | "update" | "delete";
  replace: boolean;
}

interface Parts {
  providerFamily: ProviderFamily;
  controls: Controls;
  /** The resource's own camelCase members, as the program declared them. */
  members: Props;
  /** Declared inputs the family handles itself (`ProviderFamily.extraInputs`). */
  extras: Props;
}

/** Inputs that tell the lifecycle something rather than describe the resource. */
const MARKERS: readonly string[] = [KIND_KEY, PROVIDER_KEY, CREATE_STARTED_KEY, STEP_TIMEOUT_KEY];

function split(props: Props): Parts {
  const providerFamily = familyOf(props[KIND_KEY]);
  const controls: Props = {};
  const members: Props = {};
  const extras: Props = {};
  for (const [key, value] of Object.entries(props)) {
    if (MARKERS.includes(key) || value === undefined || key === providerFamily.digest?.key) continue;
    if ((CONTROL_KEYS as readonly string[]).includes(key)) controls[key] = value;
    else if (providerFamily.extraInputs.includes(key)) extras[key] = value;
    else members[key] = value;
  }
  return { providerFamily, controls: controls as Controls, members, extras };
}

/**
 * What a create of these inputs sends: the family, the account and the wire body; no body for a family that makes
 * its resources its own way (an upload), which no list can match.
 */
export function declaredCreate(props: Props): { family: FamilyDef; account: string | undefined; desired: Props | undefined } {
  const { providerFamily, controls, members } = split(props);
  return { family: providerFamily.family, account: controls.account, desired: providerFamily.create ? undefined : wireOf(providerFamily.family.create, members) };
}

/** The canonical wire body behind recorded outputs (a response seen through the create shape). */
function recordedBody(family: FamilyDef, outputs: Props): unknown {
  return canonical(family.create, toWire(family.response, outputs));
}

function declaredBody(family: FamilyDef, members: Props): unknown {
  return canonical(family.create, wireOf(family.create, members));
}

function controlsOf(parts: Parts): Props {
  return { ...parts.controls, [KIND_KEY]: parts.providerFamily.family.collection };
}

/** Outputs recorded for an answer: every response member in camelCase, secrets as declared, plus controls. */
function outputsOf(parts: Parts, response: Props, known: Props): Props {
  // Only the members the contract declares: they are the class's typed outputs (the id is the resource's own).
  const declared = memberNames(parts.providerFamily.family.response);
  const wire = Object.fromEntries(Object.entries(response).filter(([key]) => key !== "id" && declared.includes(key)));
  const camel = fromWire(parts.providerFamily.family.response, wire);
  const members = isObject(camel) ? (keepSecrets(camel, known) as Props) : {};
  const extras = parts.providerFamily.extraOutputs?.(parts.extras, response) ?? {};
  return { ...members, ...parts.extras, ...extras, ...controlsOf(parts) };
}

/**
 * The member that records a resource archived outside the program. Read puts it in the inputs, so refresh shows
 * it as drift and the next plan as a change back (`archivedAt: "..." -> (none)`): update unarchives.
 */
const ARCHIVED_KEY = "archivedAt";

/** When the resource was archived, from recorded outputs or a response; undefined while it is active. */
function archivedAt(props: Props): string | undefined {
  const at = props[ARCHIVED_KEY] ?? props.archived_at;
  return typeof at === "string" ? at : undefined;
}

/** The inputs a program would write to get this resource, in the form check records them (defaults applied). */
function inputsRead(parts: Parts, response: Props): Props {
  const { create } = parts.providerFamily.family;
  const declared = fromWire(create, canonical(create, response));
  const archived = archivedAt(response);
  const digest = parts.providerFamily.digest?.found(response);
  return {
    ...(keepSecrets(declared, parts.members) as Props), ...parts.extras, ...controlsOf(parts),
    ...(archived ? { [ARCHIVED_KEY]: archived } : {}), ...(digest !== undefined ? { [parts.providerFamily.digest!.key]: digest } : {}),
  };
}

/**
 * The family's digest of the declared inputs, as check records it: unknown while they are, left out when they
 * cannot give one (a source file that cannot be read: the upload then fails naming it).
 */
async function declaredDigest(providerFamily: ProviderFamily, extras: Props): Promise<Props> {
  const digest = providerFamily.digest;
  if (!digest) return {};
  if (unknownPaths(extras).length > 0) return { [digest.key]: UNKNOWN };
  return digest.declared(extras).then((value) => ({ [digest.key]: value }), () => ({}));
}

/**
 * Read's inputs for a state recorded before the family's digest was an input (no digest among `recordedInputs`):
 * while the service still holds what the recorded outputs say it held, the digest is left out, so refresh finds
 * nothing; bytes changed since are recorded, and show as drift.
 */
function withoutUnrecordedDigest(providerFamily: ProviderFamily, inputs: Props, outputs: Props, recordedInputs: Props | undefined): Props {
  const key = providerFamily.digest?.key;
  if (key === undefined || recordedInputs === undefined || key in recordedInputs || inputs[key] !== outputs[key]) return inputs;
  const { [key]: _digest, ...rest } = inputs;
  return rest;
}

/**
 * The inputs `read` records for a resource whose service document is already at hand (a list's answer), without
 * its outputs: what refresh would write over `props`' inputs. Families that find their resources their own way
 * (`find`) are read through `read`.
 */
export function readInputs(props: Props, response: Props): Props {
  return inputsRead(split(props), response);
}

/** The recorded outputs `readsBack` reads: the controls and the family's extra inputs (one list per family). */
export const readBackOutputKeys: (providerFamily: ProviderFamily) => readonly string[] =
  perFamily((providerFamily) => [...CONTROL_KEYS, ...providerFamily.extraInputs]);

/**
 * True when `read` over recorded `outputs` and `inputs` would give back exactly `inputs` from `response`, decided
 * by one walk of the response instead of its normalization (see `readsAsDeclared`). False means only "read to know".
 */
export function readsBack(outputs: Props, inputs: Props, response: Props): boolean {
  const collection = inputs[KIND_KEY];
  if (typeof collection !== "string" || !Object.hasOwn(providerFamilies, collection)) return false;
  const providerFamily = familyOf(collection);
  if (providerFamily.digest) return false; // the digest is the service's to tell
  const members: Props = {};
  for (const key of Object.keys(inputs)) {
    const value = inputs[key];
    if (value === undefined || key === CREATE_STARTED_KEY) return false; // read leaves it out
    if (key !== KIND_KEY && key !== PROVIDER_KEY && !CONTROLS.has(key) && !providerFamily.extraInputs.includes(key)) members[key] = value;
  }
  // Controls and extras come back from the recorded values, the inputs' first: one only the outputs hold differs.
  for (const key of readBackOutputKeys(providerFamily)) if (!(key in inputs) && outputs[key] !== undefined) return false;
  return readsAsDeclared(providerFamily.family.create, response, members);
}

const CONTROLS = new Set<string>(CONTROL_KEYS);

/** A failed step whose resource exists: Pulumi records it in state with these reasons instead of losing it. */
class KeptResourceError extends Error {
  readonly id: string;
  readonly properties: Props;
  readonly reasons: string[];
  /** What kind of failure (see failure.ts). */
  readonly code: string | undefined;

  constructor(id: string, properties: Props, reason: string, code: string | undefined) {
    super(reason);
    this.id = id;
    this.properties = properties;
    this.reasons = [reason];
    this.code = code;
  }
}

/**
 * The features set on the account (an identity graph, a feature store), read from the service: reads, so a
 * preview may make them. Undefined when they cannot be read; the service then refuses at create, as it would.
 */
async function lookUpAccountFeatures(service: () => Service): Promise<Set<AccountFeature> | undefined> {
  try {
    const calls = service();
    const [account, stores] = await Promise.all([calls.get(families.accounts, "current"), calls.list(families.feature_stores)]);
    const has = new Set<AccountFeature>();
    if (account.identity_graph != null) has.add("identity_graph");
    if (stores.length > 0) has.add("feature_store");
    return has;
  } catch {
    return undefined;
  }
}

export function createLifecycle(env: Environment) {
  /** Members the account cannot take for want of a feature, refused in preview naming the member and the feature. */
  async function featureFailures(family: FamilyDef, account: string | undefined, wire: Props, olds: Props, unknowns: string[]): Promise<pulumi.dynamic.CheckFailure[]> {
    const known = (error: { path: string }) => !unknowns.some((u) => pathsOverlap(u, error.path));
    if (account === UNKNOWN || !accountFeatureErrors(family, wire, new Set()).some(known)) return [];
    // Read at each check of such a member (few are): the account may gain the feature between two runs.
    const features = await lookUpAccountFeatures(() => env.service(account));
    if (!features) return [];
    let before: Props | undefined;
    try {
      before = olds[KIND_KEY] !== undefined ? wireOf(family.create, split(olds).members) : undefined;
    } catch {
      before = undefined;
    }
    return accountFeatureErrors(family, wire, features, before).filter(known).map((error) => {
      const property = camelPath(family.create, error.path);
      return { property, reason: `${property} ${error.message}` };
    });
  }

  async function waitForBuild(parts: Parts, service: Service, id: string, response: Props, inputs: Props, limits: StepLimits): Promise<Props> {
    const { providerFamily, controls } = parts;
    if (controls.waitFor !== "ready" || !providerFamily.family.builds) return response;
    const own = controls.waitTimeoutSeconds ?? DEFAULT_WAIT_TIMEOUT_SECONDS;
    const marked = inputs[STEP_TIMEOUT_KEY];
    const given = limits.timeoutSeconds ?? (typeof marked === "number" ? marked : undefined);
    const engine = given !== undefined && given > 0 && given < own ? given : undefined;
    const seconds = engine ?? own;
    const deadline = Date.now() + seconds * 1000;
    let current = response;
    let delay = 250;
    let reported: unknown;
    for (;;) {
      // Awaited, so the status is shown before the step that waits for it ends.
      if (current.status !== reported) await env.progress?.(`${providerFamily.family.className} ${id}: ${String(current.status)}`);
      reported = current.status;
      if (current.status === "ready") return current;
      const keep = () => ({ ...outputsOf(parts, current, inputs), [PROVIDER_KEY]: inputs[PROVIDER_KEY] });
      if (current.status === "error") {
        const why = typeof current.status_error === "string" ? current.status_error : "no reason given";
        throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id} failed to build: ${why}`, FAILURE_CODES.buildFailed);
      }
      if (Date.now() + delay > deadline) {
        throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id} is still ${String(current.status)} after ${seconds}s (${engine !== undefined ? "customTimeouts" : "waitTimeoutSeconds"})`, FAILURE_CODES.buildTimeout);
      }
      try {
        await env.sleep(delay, limits.signal);
      } catch {
        throw new KeptResourceError(id, keep(), `${providerFamily.family.className} ${id}: the wait for its build was cancelled while ${String(current.status)}`, FAILURE_CODES.cancelled);
      }
      delay = Math.min(delay * 2, 10_000);
      current = await service.get(providerFamily.family, id);
    }
  }

  /** The optional wait, then the family's own steps (which may need the built resource). */
  async function finish(parts: Parts, service: Service, id: string, response: Props, inputs: Props, limits: StepLimits): Promise<Props> {
    let current = response;
    try {
      current = await waitForBuild(parts, service, id, current, inputs, limits);
      if (!parts.providerFamily.afterWrite || Object.keys(parts.extras).length === 0) return current;
      return await parts.providerFamily.afterWrite(service, id, parts.extras, current);
    } catch (error) {
      if (error instanceof KeptResourceError) throw error;
      // The write went through: keep the resource in state, failing the step with the reason.
      const kept = { ...outputsOf({ ...parts, extras: {} }, current, inputs), [PROVIDER_KEY]: inputs[PROVIDER_KEY] };
      throw new KeptResourceError(id, kept, (error as Error).message, failureCode(error));
    }
  }

  const provider = {
    async check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult & { failures: CheckFailure[] }> {
      const failures: CheckFailure[] = [];
      let parts: Parts;
      try {
        parts = split(news);
      } catch (e) {
        return { inputs: news, failures: [{ property: KIND_KEY, reason: (e as Error).message }] };
      }
      const { providerFamily, controls, members } = parts;

      const controlUnknowns = unknownPaths(controls);
      const controlResult = validate(controlsSchema, controls);
      if (!controlResult.ok) {
        for (const error of controlResult.errors) {
          if (!controlUnknowns.some((u) => pathsOverlap(u, error.path))) failures.push({ property: error.path, reason: error.message });
        }
      }
      if (typeof controls.account === "string" && controls.account !== UNKNOWN) {
        const problem = unknownAccount(env.settings(), controls.account);
        if (problem) failures.push({ property: "account", reason: problem });
      }
      // The service's ids are uuids: any other adoptId would only fail at create time, after the preview passed.
      const { adoptId } = controls;
      if (typeof adoptId === "string" && adoptId !== "" && !providerFamily.family.singleton && !serviceId.safeParse(adoptId).success) {
        failures.push({ property: "adoptId", reason: `adoptId must be the id (a uuid) of an existing ${providerFamily.family.className}; got ${JSON.stringify(adoptId)}` });
      }
      if (controls.account !== UNKNOWN) {
        const problem = await env.accountProblem?.(controls.account);
        if (problem) failures.push({ property: "", reason: problem.reason, code: problem.code });
      }
      if (!providerFamily.family.creatable && !providerFamily.create && controls.adoptId === undefined) {
        failures.push({ property: "adoptId", reason: `${providerFamily.family.className} cannot be created through the API: give adoptId to manage an existing one` });
      }

      if (providerFamily.check) {
        const unknown = unknownPaths(parts.extras);
        failures.push(...providerFamily.check(parts.extras).filter((f) => !unknown.some((u) => pathsOverlap(u, f.property))));
      }
      const wire = wireOf(providerFamily.family.create, members);
      const unknowns = unknownPaths(wire);
      const result = validate(providerFamily.family.create, wire, providerFamily.family.readOnly);
      if (!result.ok) {
        for (const error of result.errors) {
          if (unknowns.some((u) => pathsOverlap(u, error.path))) continue; // decided once the value is known
          const property = camelPath(providerFamily.family.create, error.path);
          const near = error.context.errorType === "unrecognized_key" ? closestMember(property, [...memberNames(providerFamily.family.create).map(camelKey), ...providerFamily.extraInputs, ...CONTROL_KEYS]) : undefined;
          failures.push({ property, reason: near ? `${error.message}; did you mean \`${near}\`?` : error.message });
        }
      }
      // A member's need of an account feature is known once the member is, whatever else is still unknown.
      const needs = await featureFailures(providerFamily.family, controls.account, wire, olds, unknowns);
      failures.push(...needs);
      if (!result.ok || unknowns.length > 0 || needs.length > 0) return { inputs: news, failures };
      // Record the inputs with the service's defaults applied, the form refresh reads back: no spurious drift.
      const complete = fromWire(providerFamily.family.create, withoutNulls(result.value)) as Props;
      const inputs = Object.fromEntries(Object.entries(news).filter(([key]) => !(key in members)));
      return { inputs: { ...inputs, ...complete, ...(failures.length === 0 ? await declaredDigest(providerFamily, parts.extras) : {}) }, failures };
    },

    /** Pulumi's dynamic answer; besides, for a replace, the paths that force it (the engine's in-process host shows them). */
    async diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult & { forcing?: string[] }> {
      const { changed, replaces, details } = await compare(olds, news);
      const forcing = details.filter((d) => d.replace).map((d) => d.path);
      return { changes: changed.length > 0 || replaces.length > 0, replaces, deleteBeforeReplace: false, ...(replaces.length > 0 ? { forcing } : {}) };
    },

    async create(inputs: Props, limits: StepLimits = {}): Promise<pulumi.dynamic.CreateResult> {
      const parts = split(inputs);
      const { providerFamily, controls, members } = parts;
      const service = env.service(controls.account);
      const desired = wireOf(providerFamily.family.create, members);
      let response: Props;
      let id: string;
      if (providerFamily.create) {
        ({ id, response } = await providerFamily.create(service, parts.extras));
      } else if (controls.adoptId !== undefined) {
        const existing = await service.get(providerFamily.family, controls.adoptId);
        // Declared inputs win: members the program leaves out are cleared, as an update would. A credential the
        // service answers as `<secret>` cannot be compared: the declared one is taken as the one it holds.
        const patch = mergePatch(canonical(providerFamily.family.create, keepSecrets(existing, desired)), canonical(providerFamily.family.create, desired));
        response = patch === undefined ? existing : await service.update(providerFamily.family, controls.adoptId, patch as Props);
        id = String(response.id);
      } else {
        const startedAt = typeof inputs[CREATE_STARTED_KEY] === "number" ? inputs[CREATE_STARTED_KEY] : undefined;
        response = await createOnce(service, providerFamily.family, desired, (message) => env.report?.(message), startedAt);
        id = String(response.id);
      }
      response = await finish(parts, service, id, response, inputs, limits);
      return { id, outs: outputsOf(parts, response, members) };
    },

    /**
     * `props` are the recorded outputs (the inputs when there are none); `recordedInputs` the recorded inputs, when
     * the host gives them (the engine's own hosts do; Pulumi's dynamic-provider host does not).
     */
    async read(id: string, props: Props, recordedInputs?: Props): Promise<pulumi.dynamic.ReadResult> {
      const parts = split(props);
      const { providerFamily } = parts;
      const service = env.service(parts.controls.account);
      const response = providerFamily.find ? await providerFamily.find(service, id, props) : await service.find(providerFamily.family, id);
      if (response === undefined) return {};
      const outs = keepSignedUrls(outputsOf(parts, response, parts.members), props) as Props;
      return { id, props: outs, inputs: withoutUnrecordedDigest(providerFamily, inputsRead(parts, response), props, recordedInputs) };
    },

    async update(id: string, olds: Props, news: Props, limits: StepLimits = {}): Promise<pulumi.dynamic.UpdateResult> {
      const before = split(olds);
      const parts = split(news);
      const { providerFamily } = parts;
      const service = env.service(parts.controls.account);
      const unchanged = { outs: { ...withoutControls(olds), ...parts.extras, ...controlsOf(parts) } };
      // Archived outside the program: the program declares it active, so it is unarchived first.
      const archived = archivedAt(olds) !== undefined;
      if (archived) await service.unarchive(providerFamily.family, id);
      let response: Props;
      const own = providerFamily.update;
      if (own) {
        const answer = await unlessUnknown(`the update of ${providerFamily.family.className} ${id}`, () => own(service, id, { extras: parts.extras, recordedExtras: before.extras, recorded: olds }));
        if (answer === undefined && !archived) return unchanged;
        response = answer ?? await service.get(providerFamily.family, id);
      } else {
        const patch = mergePatch(recordedBody(providerFamily.family, before.members), declaredBody(providerFamily.family, parts.members));
        // A build an earlier step left failed or unfinished is awaited again, so a retry cannot pass without it.
        const unbuilt = parts.controls.waitFor === "ready" && providerFamily.family.builds && olds.status !== "ready";
        // Only controls changed (wait, deletion, account name): nothing to send.
        if (patch === undefined && jsonEqual(before.extras, parts.extras) && !unbuilt && !archived) return unchanged;
        response = patch === undefined ? await service.get(providerFamily.family, id)
          : await unlessUnknown(`the update of ${providerFamily.family.className} ${id}`, () => service.update(providerFamily.family, id, patch as Props));
      }
      response = await finish(parts, service, id, response, news, limits);
      return { outs: outputsOf(parts, response, parts.members) };
    },

    async delete(id: string, props: Props): Promise<void> {
      const { providerFamily, controls } = split(props);
      const family = providerFamily.family;
      const archive = controls.deletionMode === "archive" || (!family.deletable && family.archivable);
      if (family.singleton || (!family.deletable && !family.archivable)) return; // nothing to remove: state forgets it
      const service = env.service(controls.account);
      await unlessUnknown(`the ${archive && !providerFamily.delete ? "archive" : "delete"} of ${family.className} ${id}`, async () => {
        if (providerFamily.delete) {
          await providerFamily.delete(service, id);
        } else if (archive) {
          const body: Props = {};
          if (controls.cascadeTo !== undefined) body.cascade_to = controls.cascadeTo;
          if (controls.cascadeToAll !== undefined) body.cascade_to_all = controls.cascadeToAll;
          await service.archive(family, id, body);
        } else {
          await service.delete(family, id);
        }
      });
      if (!providerFamily.delete && !archive) await removeDerived(service, providerFamily, id, props);
    },
  };

  /**
   * Removes what the service made for a deleted resource (a dataset's streams and traits): each made after it and
   * made by no other resource of its family. One the service keeps (something uses it) is reported, not failed on.
   */
  async function removeDerived(service: Service, providerFamily: ProviderFamily, id: string, outputs: Props): Promise<void> {
    const since = outputs.createdAt;
    if (!providerFamily.derives?.length || typeof since !== "string") return;
    const others = (await service.list(providerFamily.family)).filter((doc) => String(doc.id) !== id);
    const stillMade = derivedNames(others.map((doc) => ({ providerFamily, outputs: fromWire(providerFamily.family.response, doc) as Props })));
    for (const derived of providerFamily.derives) {
      const names = derived.names(outputs).filter((name) => !stillMade.get(derived.collection)?.has(name));
      if (names.length === 0) continue;
      const family = familyOf(derived.collection).family;
      for (const doc of await service.list(family)) {
        const made = typeof doc.created_at === "string" && doc.created_at >= since;
        if (!made || doc.managed === true || !names.includes(String(doc.name))) continue;
        try {
          await service.delete(family, String(doc.id));
        } catch (error) {
          env.report?.(`${family.className} "${String(doc.name)}" made by ${providerFamily.family.className} ${id} is left in the account: ${(error as Error).message}`);
        }
      }
    }
  }
  return provider;
}

/**
 * What differs between recorded outputs and declared inputs (camelCase member names), what forces a replacement,
 * and the same per property path (`options.delimiter`) for hosts that show a detailed diff.
 */
export async function compare(olds: Props, news: Props): Promise<{ changed: string[]; replaces: string[]; details: PathChange[] }> {
  const before = split(olds);
  const after = split(news);
  if (before.providerFamily !== after.providerFamily) return { changed: [KIND_KEY], replaces: [KIND_KEY], details: [{ path: KIND_KEY, change: "update", replace: true }] };
  const family = after.providerFamily.family;
  const old = recordedBody(family, before.members);
  const now = declaredBody(family, after.members);
  const changed = new Set<string>();
  const keys = new Set([...Object.keys(isObject(old) ? old : {}), ...Object.keys(isObject(now) ? now : {})]);
  for (const key of keys) {
    if (!jsonEqual(isObject(old) ? old[key] : undefined, isObject(now) ? now[key] : undefined)) changed.add(camelPath(family.create, key));
  }
  const replaces = family.createOnly
    .filter((path) => !jsonEqual(at(old, path), at(now, path)))
    .map((path) => camelPath(family.create, path.split(/[.[]/)[0] ?? path));
  const createOnly = family.createOnly.map((path) => camelPath(family.create, path));
  const details: PathChange[] = changedPaths(old, now).map(({ path, change }) => {
    const camel = camelPath(family.create, path);
    return { path: camel, change, replace: createOnly.some((c) => pathsOverlap(c, camel)) };
  });
  const top = (key: string) => {
    changed.add(key);
    const [old, now] = [before.extras[key] ?? before.controls[key as keyof Controls], after.extras[key] ?? after.controls[key as keyof Controls]];
    // A member neither side declares (an upload's md5Hash) changed in what it stands for.
    details.push({ path: key, change: old === undefined && now === undefined ? "update" : changeOf(old, now), replace: false });
  };
  for (const key of new Set([...Object.keys(before.extras), ...Object.keys(after.extras)])) {
    if (!jsonEqual(before.extras[key], after.extras[key])) top(key);
  }
  if (after.providerFamily.diff) {
    const own = await after.providerFamily.diff({ extras: after.extras, recordedExtras: before.extras, recorded: olds });
    for (const key of own.changed) if (!changed.has(key)) top(key);
    replaces.push(...own.replaces);
  }
  for (const key of CONTROL_KEYS) {
    if (!jsonEqual(before.controls[key], after.controls[key])) top(key);
  }
  if (archivedAt(olds) !== undefined && archivedAt(news) === undefined) {
    changed.add(ARCHIVED_KEY);
    details.push({ path: ARCHIVED_KEY, change: "delete", replace: false });
  }
  if (before.controls.adoptId !== after.controls.adoptId && after.controls.adoptId !== undefined) replaces.push("adoptId");
  for (const detail of details) if (replaces.includes(detail.path)) detail.replace = true;
  return { changed: [...changed], replaces: [...new Set(replaces)], details: uniqueByPath(details) };
}

function changeOf(old: unknown, now: unknown): PathChange["change"] {
  return old === undefined ? "add" : now === undefined ? "delete" : "update";
}

/** The edit distance between two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The member a mistyped top-level name most likely meant (a few edits away, case ignored), or undefined. */
function closestMember(written: string, members: readonly string[]): string | undefined {
  if (/[.[]/.test(written)) return undefined;
  const lower = written.toLowerCase();
  const scored = members.map((m) => ({ m, d: distance(lower, m.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.floor(written.length / 4)) ? best.m : undefined;
}

/** The innermost wire paths where two canonical bodies differ (objects and arrays walked). */
function changedPaths(old: unknown, now: unknown, path = ""): { path: string; change: PathChange["change"] }[] {
  if (jsonEqual(old, now)) return [];
  if (path !== "" && (old === undefined || now === undefined)) return [{ path, change: changeOf(old, now) }];
  if (isObject(old) && isObject(now)) {
    const keys = new Set([...Object.keys(old), ...Object.keys(now)]);
    return [...keys].flatMap((k) => changedPaths(old[k], now[k], path === "" ? k : `${path}.${k}`));
  }
  if (Array.isArray(old) && Array.isArray(now)) {
    return Array.from({ length: Math.max(old.length, now.length) }, (_, i) => changedPaths(old[i], now[i], `${path}[${i}]`)).flat();
  }
  return [{ path, change: "update" }];
}

function uniqueByPath(details: PathChange[]): PathChange[] {
  return [...new Map(details.map((d) => [d.path, d])).values()];
}

/** Recorded outputs without the controls, which the new inputs restate. */
function withoutControls(olds: Props): Props {
  return Object.fromEntries(Object.entries(olds).filter(([key]) => !(CONTROL_KEYS as readonly string[]).includes(key)));
}

/** The member at a dotted wire path (`representation.mode`). */
function at(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) current = isObject(current) ? current[part] : undefined;
  return current;
}
