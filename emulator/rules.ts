// Request rules that need more than the body: references to other resources, quotas, create-only members,
// and the contract's context rules (those that read other resources of the account).
import { jsonEqual, unwrap, valueAt, valuesAt, type AccountFeature, type FamilyDef, type FieldError } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { ApiError, fieldError, validationFailed } from "./errors.ts";
import type { Doc, StoredResource } from "./model.ts";
import { singular } from "./nouns.ts";
import type { FamilyRegistry } from "./registry.ts";
import { DEFAULT_QUOTA, type ServiceState } from "./state.ts";

/** Members a client writes (what a merge patch applies to): the create body's members. */
export function clientMembers(family: FamilyDef, doc: Doc): Doc {
  const create = unwrap(family.create);
  // Every family's create body is an object (test/contract/families.test.ts holds each one to it).
  const writable = new Set(create instanceof z.ZodObject ? Object.keys(create.shape) : []);
  return Object.fromEntries(Object.entries(doc).filter(([k, v]) => v !== undefined && writable.has(k)));
}

/** The read-only members the service keeps when a client rewrites the rest. */
export function serviceMembers(family: FamilyDef, doc: Doc): Doc {
  const client = clientMembers(family, doc);
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !(k in client)));
}

/**
 * Every reference must name an existing resource of the same account, of the right family (or, for a family
 * not kept as resources, what that family accepts).
 */
export function referenceErrors(state: ServiceState, families: FamilyRegistry, accountId: string, family: FamilyDef, doc: Doc): FieldError[] {
  const errors: FieldError[] = [];
  for (const ref of family.references) {
    for (const { at, value } of valuesAt(doc, ref.path)) {
      const referenceError = families.of(ref.collection)?.emulator.referenceError;
      if (referenceError) {
        const error = referenceError(state, value);
        if (error !== undefined) errors.push(fieldError(at, error, "reference_not_found"));
        continue;
      }
      const target = state.resource(ref.collection, value);
      if (!target || target.account_id !== accountId) {
        errors.push(fieldError(at, `names ${singular(ref.collection)} ${value}, which does not exist in this account`, "reference_not_found"));
      }
    }
  }
  return errors;
}

export function createOnlyErrors(family: FamilyDef, before: Doc, after: Doc): FieldError[] {
  return family.createOnly
    .filter((path) => !jsonEqual(valueAt(before, path), valueAt(after, path)))
    .map((path) => fieldError(path, "cannot be changed after create: create a new resource instead", "create_only"));
}

export function runContextRules(state: ServiceState, families: FamilyRegistry, accountId: string, collection: string, doc: Doc, previous?: Doc): FieldError[] {
  return (families.of(collection)?.emulator.rules ?? []).flatMap((rule) => rule({ state, accountId, doc, previous }));
}

/** The features set on an account that some members need: an identity graph, or one a family's resource gives. */
export function accountFeatures(state: ServiceState, families: FamilyRegistry, accountId: string): Set<AccountFeature> {
  const features = new Set<AccountFeature>();
  if (state.account(accountId)?.identity_graph != null) features.add("identity_graph");
  for (const family of families.all()) {
    const feature = family.emulator.accountFeature;
    if (feature === undefined) continue;
    for (const _resource of state.eachResource(accountId, family.collection)) {
      features.add(feature);
      break;
    }
  }
  return features;
}

/** Body, references and context rules together: one 400 naming every offending member. */
export function assertValid(errors: FieldError[]): void {
  if (errors.length > 0) throw validationFailed(errors);
}

export function assertQuota(state: ServiceState, accountId: string, collection: string): void {
  const account = state.account(accountId);
  const quota = account?.quotas[collection] ?? DEFAULT_QUOTA;
  const used = state.quotaUsed(accountId, collection);
  if (used >= quota) {
    throw new ApiError("MAX_RESOURCES_REACHED", `The account has reached its quota of ${quota} ${collection}`);
  }
}

export function assertWritable(resource: StoredResource): void {
  if (resource.doc.managed === true) {
    throw new ApiError("FORBIDDEN", `The ${singular(resource.collection)} ${String(resource.doc.id)} is managed by the service and read-only`);
  }
}
