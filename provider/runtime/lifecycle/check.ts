// Check: the declared inputs validated against the family's contract, the controls and the account, every failure
// named in the program's words; what passes is recorded with the service's defaults applied.
import type * as pulumi from "@pulumi/pulumi";
import { camelKey, fromWire, id as serviceId, jsonEqual, validate, type FamilyDef } from "pulumi-audience/sdk/contract";
import { ForbiddenError } from "pulumi-audience/sdk/client";
import type { ProviderFamily } from "../families/index.ts";
import { adoptionGone, managedAdoption, singletonTakeover } from "./adoption.ts";
import { closestMember } from "./closest.ts";
import { controlsSchema, CONTROL_KEYS, KIND_KEY } from "./controls.ts";
import type { Environment } from "./environment.ts";
import { featureFailures } from "./features.ts";
import { referenceFailures } from "./references.ts";
import { isRecorded, recordedWire, split, type Parts } from "./parts.ts";
import { allMemberNames, camelPath, canonical, membersAt, pathsOverlap, unknownPaths, UNKNOWN, wireOf, wireSegments, withoutNulls, type Props } from "./shape.ts";
import { unknownAccount } from "./settings.ts";

/** A check's failure; `code` says what kind (failure.ts) when it is not the inputs' own. */
export type CheckFailure = pulumi.dynamic.CheckFailure & { code?: string };

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
 * A contract's message in the program's words: the members it names (`location_conditions`) as the program writes
 * them (`locationConditions`), as its property path already is.
 */
function inProgramWords(schema: FamilyDef["create"], message: string): string {
  const members = allMemberNames(schema);
  return message.replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, (word) => (members.has(word) ? camelKey(word) : word));
}

/**
 * What a member the object at its path does not take may be instead: the member nearest what was written, else the
 * members the object takes, in the program's names.
 */
function allowedInstead(providerFamily: ProviderFamily, wirePath: string, wire: Props): string {
  const segments = wireSegments(wirePath);
  const written = camelKey(String(segments.at(-1)));
  const within = membersAt(providerFamily.family.create, segments.slice(0, -1), wire).map(camelKey);
  const allowed = segments.length === 1 ? [...within, ...providerFamily.extraInputs, ...CONTROL_KEYS] : within;
  const near = closestMember(written, allowed);
  return near ? `did you mean \`${near}\`?` : `it takes ${[...allowed].sort().join(", ")}`;
}

export async function check(env: Environment, olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult & { failures: CheckFailure[] }> {
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
  // A preview that holds the build (an outcome's) never reaches "ready": the wait could only run out.
  if (providerFamily.family.previewHoldsBuild && controls.waitFor === "ready" && members.preview === true) {
    const className = providerFamily.family.className;
    failures.push({ property: "waitFor", reason: `waitFor: "ready" waits for a build, and in preview this ${className} builds nothing until preview is false: set preview: false, or leave waitFor out while it is a preview` });
  }
  if (typeof controls.account === "string" && controls.account !== UNKNOWN) {
    const problem = unknownAccount(env.settings(), controls.account);
    if (problem) failures.push({ property: "account", reason: problem });
  }
  // The service's ids are uuids: any other adoptId would only fail at create time, after the preview passed.
  const { adoptId } = controls;
  if (adoptId !== undefined && providerFamily.create) {
    // A family made its own way (an upload, named by its path) has no adoption step: the create would ignore it.
    failures.push({ property: "adoptId", reason: `${providerFamily.family.className} takes no adoptId: it is made its own way, never adopted; take an existing one over with \`pulumi import\` of the native face (pulumi-audience/native)` });
  } else if (typeof adoptId === "string" && adoptId !== "" && !providerFamily.family.singleton && !serviceId.safeParse(adoptId).success) {
    failures.push({ property: "adoptId", reason: `adoptId must be the id (a uuid) of an existing ${providerFamily.family.className}; got ${JSON.stringify(adoptId)}` });
  }
  if (controls.account !== UNKNOWN) {
    const problem = await env.accountProblem?.(controls.account);
    if (problem) failures.push({ property: "", reason: problem.reason, code: problem.code });
  }
  // A replacement (a create-only member changed) is a new resource, which takes any value.
  const replacing = providerFamily.family.createOnly.some((path) => {
    const key = camelKey(path.split(/[.[]/)[0] ?? path);
    return !jsonEqual(olds[key], news[key]);
  });
  for (const member of replacing ? [] : providerFamily.family.setOnce) {
    // A plan of another value would promise a change the service never makes, at every up.
    const [key, was, now] = [camelKey(member), olds[camelKey(member)], news[camelKey(member)]];
    if (was !== undefined && was !== null && was !== UNKNOWN && now !== UNKNOWN && !jsonEqual(was, now)) {
      failures.push({ property: key, reason: `is set once: the service keeps the first ${key}, ${JSON.stringify(was)}, and ignores any other; declare that value again` });
    }
  }
  // One already in the state (imported, or adopted before) is managed as it is: nothing is created.
  if (!providerFamily.family.creatable && !providerFamily.create && controls.adoptId === undefined && !isRecorded(olds)) {
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
      const message = inProgramWords(providerFamily.family.create, error.message);
      failures.push({ property, reason: error.context.errorType === "unrecognized_key" ? `${message}; ${allowedInstead(providerFamily, error.path, wire)}` : message });
    }
  }
  // A member's need of an account feature is known once the member is, whatever else is still unknown.
  const needs = await featureFailures(env, providerFamily.family, controls.account, wire, olds, unknowns);
  failures.push(...needs);
  // So is a reference: the ids the program names that the account does not hold.
  if (failures.length === 0 && controls.account !== UNKNOWN) {
    failures.push(...await referenceFailures(() => env.service(controls.account), providerFamily.family, wire, () => recordedWire(providerFamily.family, olds)));
  }
  // And what only the account's other resources tell, once the whole body is known; a read that fails decides nothing.
  const { accountCheck } = providerFamily;
  if (failures.length === 0 && unknowns.length === 0 && controls.account !== UNKNOWN && accountCheck) {
    const errors = await Promise.resolve().then(() => accountCheck(env.service(controls.account), { wire, extras: parts.extras }, () => recordedWire(providerFamily.family, olds), (message) => env.report?.(message))).catch(() => []);
    const { create } = providerFamily.family;
    failures.push(...errors.map((error) => ({ property: camelPath(create, error.path), reason: inProgramWords(create, error.message) })));
  }
  if (!result.ok || unknowns.length > 0 || needs.length > 0) {
    // Members unknown until an earlier step runs (a preview): the known ones are recorded with the defaults they
    // will have, so that the plan shows only what changes.
    const known = failures.length === 0 && needs.length === 0 ? (fromWire(providerFamily.family.create, canonical(providerFamily.family.create, wire)) as Props) : {};
    return { inputs: { ...news, ...known }, failures };
  }
  // A resource not yet in the state that adopts one the account no longer has: the plan says what the up does.
  const adopting = typeof adoptId === "string" && adoptId !== UNKNOWN && controls.account !== UNKNOWN;
  if (failures.length === 0 && adopting && !isRecorded(olds) && !providerFamily.family.singleton && !providerFamily.create) {
    // A look-up that fails decides nothing here (the create reports it), but for a refusal, which the create would
    // meet as well: the resource is another account's.
    const gone = await env.service(controls.account).find(providerFamily.family, adoptId).then((found) => {
      // The service's own (a classic cohort): it refuses every change and delete, so only a lookup can use it.
      if (found?.managed === true && providerFamily.family.creatable) failures.push({ property: "adoptId", reason: managedAdoption(providerFamily.family, adoptId) });
      return found === undefined;
    }, (error: unknown) => {
      if (error instanceof ForbiddenError) failures.push({ property: "adoptId", reason: error.message });
      return false;
    });
    if (gone && !providerFamily.family.creatable) failures.push({ property: "adoptId", reason: adoptionGone(providerFamily.family, adoptId) });
    else if (gone) env.report?.(adoptionGone(providerFamily.family, adoptId));
  }
  // One per account, not yet in the state: the plan says when the up takes over the account's own.
  if (failures.length === 0 && providerFamily.family.singleton && adoptId === undefined && !isRecorded(olds) && controls.account !== UNKNOWN) {
    const existing = await env.service(controls.account).find(providerFamily.family, "").catch(() => undefined);
    if (existing !== undefined) env.report?.(singletonTakeover(providerFamily.family));
  }
  // Record the inputs with the service's defaults applied, the form refresh reads back: no spurious drift.
  const complete = fromWire(providerFamily.family.create, withoutNulls(result.value)) as Props;
  const inputs = Object.fromEntries(Object.entries(news).filter(([key]) => !(key in members)));
  return { inputs: { ...inputs, ...complete, ...(failures.length === 0 ? await declaredDigest(providerFamily, parts.extras) : {}) }, failures };
}
