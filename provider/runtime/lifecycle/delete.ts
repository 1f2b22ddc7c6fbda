// Delete: the resource deleted or archived (as its controls and family say), then what the service made for it.
import { fromWire } from "pulumi-audience/sdk/contract";
import { ConflictError } from "pulumi-audience/sdk/client";
import { derivedNames, familyOf, type ProviderFamily } from "../families/index.ts";
import { unlessUnknown } from "./ambiguous.ts";
import type { Environment } from "./environment.ts";
import { split } from "./parts.ts";
import type { Service } from "./service.ts";
import type { Props } from "./shape.ts";

export async function remove(env: Environment, id: string, props: Props): Promise<void> {
  const { providerFamily, controls } = split(props);
  const family = providerFamily.family;
  const archive = controls.deletionMode === "archive" || (!family.deletable && family.archivable);
  if (props.managed === true) {
    // Adopted before adoption refused it: the service refuses its delete and archive alike.
    env.report?.(`${family.className} ${id} stays in the account: the service manages it (read-only), so it is only removed from the stack`);
    return;
  }
  if (family.singleton || (!family.deletable && !family.archivable)) {
    // Nothing the service takes: the stack forgets it, and says so (the CLI itself reports it deleted).
    env.report?.(`${family.className} ${id} stays in the account: the service neither deletes nor archives it, so it is only removed from the stack`);
    return;
  }
  const service = env.service(controls.account);
  await unlessUnknown(`the ${archive && !providerFamily.delete ? "archive" : "delete"} of ${family.className} ${id}`, async () => {
    if (providerFamily.delete) {
      await providerFamily.delete(service, id);
    } else if (archive) {
      const body: Props = {};
      if (controls.cascadeTo !== undefined) body.cascade_to = controls.cascadeTo;
      if (controls.cascadeToAll !== undefined) body.cascade_to_all = controls.cascadeToAll;
      await service.archive(family, id, body).catch((error: unknown) => {
        // The service names its members; the program writes them as controls of the resource.
        if (error instanceof ConflictError) error.message = error.message.replace(/\bcascade_to_all\b/g, "cascadeToAll").replace(/\bcascade_to\b/g, "cascadeTo");
        throw error;
      });
    } else {
      await whenNothingDependsOn(env, () => service.delete(family, id));
    }
  });
  if (!providerFamily.delete && !archive) await removeDerived(env, service, providerFamily, id, props);
  if (family.deletion === "scheduled" && !archive) env.report?.(`${family.className} ${id} is scheduled for deletion: the service removes it after its waiting period`);
}

/**
 * How long a delete the service refuses (409) because something still depends on the resource waits for that to go.
 * Pulumi deletes in parallel what it does not know to depend on each other: a target imported with its scope's id
 * written as text is deleted beside that scope, and goes within a second or two.
 */
const DEPENDENTS_WAIT_MS = 20_000;

async function whenNothingDependsOn(env: Environment, remove: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + DEPENDENTS_WAIT_MS;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4_000)) {
    try {
      return await remove();
    } catch (error) {
      // The service's message names what depends on the resource: after the wait it is the step's error, with
      // what holds on past any run (an archived resource keeps its references).
      if (!(error instanceof ConflictError)) throw error;
      if (Date.now() + delay > deadline) {
        error.message += ` (waited ${DEPENDENTS_WAIT_MS / 1000}s for them to go: nothing in this run deletes them, so another stack or program manages them, `
          + "or they were made by hand; delete or change them there first. An archived one stays until it is deleted in the service: "
          + 'then archive this resource instead, deletionMode "archive")';
        throw error;
      }
      await env.sleep(delay);
    }
  }
}

/**
 * Removes what the service made for a deleted resource (a dataset's streams and traits): each made after it and
 * made by no other resource of its family. One the service keeps (something uses it) is reported, not failed on.
 */
async function removeDerived(env: Environment, service: Service, providerFamily: ProviderFamily, id: string, outputs: Props): Promise<void> {
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
