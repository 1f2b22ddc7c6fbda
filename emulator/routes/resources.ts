// Generic endpoints of every resource family in the contract: create, list (with ?ids=), get, merge-patch
// update, delete, archive / unarchive (with cascades) and force_update. A family added to the contract's
// `families` gets them without a change here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { accountFeatureErrors, applyMergePatch, archiveRequest, collectionPath, id as uuid, itemPath, jsonEqual, validate } from "pulumi-audience/sdk/contract";
import { ApiError, conflict, fieldError, notFound, validationFailed } from "../errors.ts";
import { now } from "../clock.ts";
import type { Doc, StoredResource } from "../model.ts";
import { singular } from "../nouns.ts";
import { answersAsStored, type FamilyRegistry, type RegisteredFamily } from "../registry.ts";
import {
  accountFeatures, assertQuota, assertValid, assertWritable, clientMembers, createOnlyErrors, referenceErrors, runContextRules, serviceMembers,
} from "../rules.ts";
import type { EmulatorContext, RouteModule } from "../context.ts";
import { assertIds, listFilters, sendList, streamed } from "./paging.ts";

const archiveBody = archiveRequest.optional();

type Params = { id: string };

/** The generic routes of every family of `families` that leaves them to the core. */
export function register(families: FamilyRegistry): RouteModule {
  return (app, ctx) => {
    for (const family of families.all()) if (family.emulator.ownRoutesOnly !== true) registerFamily(app, ctx, families, family);
  };
}

function registerFamily(server: FastifyInstance, ctx: EmulatorContext, families: FamilyRegistry, family: RegisteredFamily): void {
  const { state, builds } = ctx;
  // Routes another module serves specially (registered before this one) keep their handler.
  const route = (method: "GET" | "POST" | "PATCH" | "DELETE") =>
    <P extends object = object>(url: string, handler: (request: FastifyRequest<{ Params: P }>, reply: FastifyReply) => unknown) => {
      if (!server.hasRoute({ method, url })) server.route<{ Params: P }>({ method, url, handler });
    };
  const app = { get: route("GET"), post: route("POST"), patch: route("PATCH"), delete: route("DELETE") };
  const base = collectionPath(family);
  const item = itemPath(family, ":id");
  const collection = family.collection;
  const { findByKey, onCreate, onChange } = family.emulator;

  // A listed document is written as JSON at once: its text, kept for lists answered at once (a streamed list's are
  // not: a whole account's listing would keep every document's text at once).
  const listedJson = (request: FastifyRequest, resource: Readonly<StoredResource>, keep: boolean): string => {
    const doc = ctx.present(request, resource);
    return keep ? ctx.json(doc) : JSON.stringify(doc);
  };

  /** Whether ctx.present answers this family's stored documents as they are. */
  const answeredAsStored = answersAsStored(family);

  const lookup = (request: FastifyRequest<{ Params: Params }>): StoredResource => {
    const key = request.params.id;
    if (findByKey && !uuid.safeParse(key).success) {
      const found = findByKey(state, ctx.account(request).id, key);
      if (!found) throw notFound(`No ${family.name} named ${key} exists`);
      return found;
    }
    return ctx.owned(request, collection, key);
  };

  const singleton = (request: FastifyRequest): StoredResource => {
    const found = state.resources(ctx.account(request).id, collection)[0];
    if (!found) throw notFound(`The account has no ${family.name} yet: create it with POST ${base}`);
    return found;
  };

  const create = (request: FastifyRequest, reply: FastifyReply) => {
    const accountId = ctx.account(request).id;
    const parsed = validate(family.create, request.body, family.readOnly);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const doc = parsed.value as Doc;
    assertValid([
      ...referenceErrors(state, families, accountId, family, doc),
      ...accountFeatureErrors(family, doc, accountFeatures(state, families, accountId)),
      ...runContextRules(state, families, accountId, collection, doc),
    ]);
    const created = state.store.transaction(() => {
      if (family.singleton && state.resources(accountId, collection).length > 0) {
        throw conflict(`The account already has its ${family.name}; change it with PATCH ${base}`);
      }
      assertQuota(state, accountId, collection);
      const fresh = state.newDoc(collection, {
        // A family whose own `status` is a client member (webhook endpoints) keeps it.
        status: family.builds ? "new" : "ready", ...doc, ...onCreate?.(state, accountId, doc),
      });
      return builds.create({ account_id: accountId, collection, doc: fresh });
    });
    return reply.code(family.createdStatus).send(ctx.present(request, created));
  };

  const update = (request: FastifyRequest, reply: FastifyReply, resource: StoredResource) => {
    assertWritable(resource);
    if (resource.doc.archived_at != null) {
      throw conflict(`The ${family.name} ${String(resource.doc.id)} is archived: unarchive it before changing it`);
    }
    if (request.body === undefined || typeof request.body !== "object" || request.body === null || Array.isArray(request.body)) {
      throw validationFailed([fieldError("", "must be a JSON object (a merge patch)", "invalid_type")]);
    }
    const patch = validate(family.patch, request.body, family.readOnly);
    if (!patch.ok) throw validationFailed(patch.errors);
    const before = clientMembers(family, resource.doc);
    // Cross-member rules hold on the merged document, as validated on create.
    const merged = validate(family.create, applyMergePatch(before, request.body), family.readOnly);
    if (!merged.ok) throw validationFailed(merged.errors);
    const after = onChange ? onChange(resource.doc, merged.value as Doc) : merged.value as Doc;
    const accountId = resource.account_id;
    assertValid([
      ...createOnlyErrors(family, before, after),
      ...referenceErrors(state, families, accountId, family, after),
      ...accountFeatureErrors(family, after, accountFeatures(state, families, accountId), before),
      ...runContextRules(state, families, accountId, collection, after, before),
    ]);
    if (jsonEqual(before, after)) return reply.send(ctx.present(request, resource));
    const updated = state.store.transaction(() => {
      const at = now();
      const next: StoredResource = {
        ...resource,
        doc: { ...serviceMembers(family, resource.doc), ...after, updated_at: at, last_updated_config_at: at },
      };
      state.save(next);
      return builds.rerun(next);
    });
    return reply.send(ctx.present(request, updated));
  };

  const remove = (reply: FastifyReply, resource: StoredResource) => {
    assertWritable(resource);
    const dependents = state.downstreamOf(resource.account_id, String(resource.doc.id));
    if (dependents.length > 0) {
      const names = dependents.map((d) => `${singular(d.collection)} ${String(d.doc.name ?? "")} (${String(d.doc.id)})`);
      throw conflict(`The ${family.name} ${String(resource.doc.id)} cannot be deleted: ${names.join(", ")} depend${dependents.length === 1 ? "s" : ""} on it. Delete or change them first.`);
    }
    if (family.deletion === "scheduled") {
      // Deleted after a waiting period: the request is recorded and the resource keeps working meanwhile.
      state.store.transaction(() => state.save({ ...resource, doc: { ...resource.doc, deletion_requested_at: resource.doc.deletion_requested_at ?? now() } }));
      return reply.code(202).send();
    }
    state.store.transaction(() => {
      const id = String(resource.doc.id);
      for (const part of state.ownedBy(resource.account_id, id)) state.remove(part.collection, String(part.doc.id));
      state.remove(collection, id);
    });
    return reply.code(204).send();
  };

  const forceUpdate = (reply: FastifyReply, resource: StoredResource) => {
    assertWritable(resource);
    if (resource.doc.archived_at != null) throw conflict(`The ${family.name} ${String(resource.doc.id)} is archived`);
    state.store.transaction(() => {
      if (family.builds) builds.rerun(resource);
      // What a family that does not build computes (a migration's pair readiness) is computed as it is read:
      // refreshing it is stamping when.
      else state.save({ ...resource, doc: { ...resource.doc, last_updated_output_at: now() } });
    });
    return reply.code(204).send();
  };

  if (family.singleton) {
    app.get(base, (request, reply) => reply.send(ctx.present(request, singleton(request))));
    if (family.creatable) app.post(base, create);
    app.patch(base, (request, reply) => update(request, reply, singleton(request)));
    if (family.deletable) app.delete(base, (request, reply) => remove(reply, singleton(request)));
    app.post(`${base}/force_update`, (request, reply) => forceUpdate(reply, singleton(request)));
    return;
  }

  app.get(base, (request, reply) => {
    const { ids, archived } = listFilters(request.query);
    const accountId = ctx.account(request).id;
    let listed: readonly Readonly<StoredResource>[];
    if (ids) {
      // Ids are looked up directly; only those the lookup cannot vouch for are tested against the id pattern, before
      // anything is answered. A family that answers its stored documents as they are has their kept texts answered.
      const untested: string[] = [];
      if (answeredAsStored) {
        const texts = state.textsById(accountId, collection, ids, { archived }, untested);
        assertIds(ids, untested);
        return sendList(reply, texts, (text) => text);
      }
      listed = state.resourcesById(accountId, collection, ids, { archived }, untested);
      assertIds(ids, untested);
    } else {
      listed = [...state.eachResource(accountId, collection, { archived })];
    }
    // A long list (a whole listing) is streamed.
    const keep = !streamed(listed.length);
    return sendList(reply, listed, (r) => listedJson(request, r, keep));
  });
  if (family.creatable) app.post(base, create);
  app.get<Params>(item, (request, reply) => reply.send(ctx.present(request, lookup(request))));
  app.patch<Params>(item, (request, reply) => update(request, reply, lookup(request)));
  if (family.deletable) app.delete<Params>(item, (request, reply) => remove(reply, lookup(request)));
  if (family.forceUpdatable) app.post<Params>(`${item}/force_update`, (request, reply) => forceUpdate(reply, lookup(request)));
  if (!family.archivable) return;
  for (const action of ["archive", "unarchive"] as const) {
    app.post<Params>(`${item}/${action}`, (request, reply) => {
      const resource = lookup(request);
      assertWritable(resource);
      const parsed = validate(archiveBody, request.body);
      if (!parsed.ok) throw validationFailed(parsed.errors);
      state.store.transaction(() => archive(ctx, resource, action, parsed.value ?? {}));
      return reply.code(204).send();
    });
  }
}

/**
 * Archiving needs everything downstream archived first, unarchiving everything upstream unarchived;
 * `cascade_to` names the resources that may move along, `cascade_to_all` lets all of them.
 */
function archive(ctx: EmulatorContext, resource: StoredResource, action: "archive" | "unarchive",
  options: { cascade_to?: string[]; cascade_to_all?: boolean }): void {
  const { state, builds } = ctx;
  const archiving = action === "archive";
  const id = String(resource.doc.id);
  const needed = state.closure(resource.account_id, id, archiving ? "downstream" : "upstream")
    .filter((r) => (r.doc.archived_at != null) !== archiving && r.doc.managed !== true);
  if (!options.cascade_to_all) {
    const allowed = new Set(options.cascade_to ?? []);
    const blocking = needed.filter((r) => !allowed.has(String(r.doc.id)));
    if (blocking.length > 0) {
      const list = blocking.map((r) => `${r.collection} ${String(r.doc.id)}`).join(", ");
      throw new ApiError("CONFLICT", archiving
        ? `Archive the downstream resources first, or name them in cascade_to (or set cascade_to_all): ${list}`
        : `Unarchive the upstream resources first, or name them in cascade_to (or set cascade_to_all): ${list}`);
    }
  }
  const at = now();
  for (const r of [resource, ...needed]) {
    if ((r.doc.archived_at != null) === archiving) continue;
    r.doc.archived_at = archiving ? at : null;
    r.doc.updated_at = at;
    if (archiving) delete r.build;
    state.save(r);
  }
  // A build cut short by archiving starts again.
  if (archiving) return;
  for (const r of [resource, ...needed]) {
    if (r.doc.status !== "ready" && r.doc.status !== "error") builds.start(state.resource(r.collection, String(r.doc.id)) as StoredResource);
  }
}
