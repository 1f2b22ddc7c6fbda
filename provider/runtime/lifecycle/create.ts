// Create: a new resource made once (an interrupted attempt's result looked for first), or an existing one adopted
// (`adoptId`) and brought to the declared inputs, or made anew when the adopted one is gone; then the optional wait
// for its build.
import type * as pulumi from "@pulumi/pulumi";
import { mergePatch } from "pulumi-audience/sdk/contract";
import { adoptionGone } from "./adoption.ts";
import { createOnce, lookForCreated } from "./ambiguous.ts";
import { finish } from "./build.ts";
import { CREATE_LOOK_ONLY_KEY, CREATE_STARTED_KEY } from "./controls.ts";
import { FAILURE_CODES, withCode } from "./failure.ts";
import type { Environment, StepLimits } from "./environment.ts";
import { outputsOf } from "./outputs.ts";
import { split } from "./parts.ts";
import { canonical, wireOf, type Props } from "./shape.ts";

export async function create(env: Environment, inputs: Props, limits: StepLimits = {}): Promise<pulumi.dynamic.CreateResult> {
  const parts = split(inputs);
  const { providerFamily, controls, members } = parts;
  const service = env.service(controls.account);
  const desired = wireOf(providerFamily.family.create, members);
  let response: Props;
  let id: string;
  const startedAt = typeof inputs[CREATE_STARTED_KEY] === "number" ? inputs[CREATE_STARTED_KEY] : undefined;
  if (inputs[CREATE_LOOK_ONLY_KEY] === true) {
    // Only what an interrupted create made, for a destroy or a refresh: an adoption took over what existed before.
    const found = startedAt === undefined || providerFamily.create || controls.adoptId !== undefined
      ? undefined
      : await lookForCreated(service, providerFamily.family, desired, (message) => env.report?.(message), startedAt);
    if (found === undefined) throw withCode(new Error("the interrupted create made nothing"), FAILURE_CODES.nothingMade);
    return { id: String(found.id), outs: outputsOf(parts, found, members) };
  }
  let existing: Props | undefined;
  // One per account (insights): the account's own is taken over as adoptId would take it, since a destroy leaves it.
  const adopting = controls.adoptId ?? (providerFamily.family.singleton ? "" : undefined);
  if (providerFamily.create) {
    ({ id, response } = await providerFamily.create(service, parts.extras, { startedAt }));
  } else if (adopting !== undefined && (existing = await service.find(providerFamily.family, adopting)) !== undefined) {
    // Declared inputs win: members the program leaves out are cleared, as an update would. A credential the
    // service answers as `<secret>` cannot be compared: the declared one is sent, as a create would send it.
    const patch = mergePatch(canonical(providerFamily.family.create, existing), canonical(providerFamily.family.create, desired));
    response = patch === undefined ? existing : await service.update(providerFamily.family, adopting, patch as Props);
    id = String(response.id);
    const which = typeof members.name === "string" ? `${providerFamily.family.className} "${members.name}"` : providerFamily.family.className;
    const done = patch === undefined ? ", already as declared" : ", brought to the declared inputs";
    // A singleton's takeover was said aloud by check, in the plan.
    const how = controls.adoptId === undefined ? "took over the account's own (one per account)" : `adopted ${id} (adoptId)`;
    await env.progress?.(`${which}: ${how} instead of creating it${done}`);
  } else {
    if (controls.adoptId !== undefined) {
      const gone = adoptionGone(providerFamily.family, controls.adoptId);
      if (!providerFamily.family.creatable) throw new Error(gone);
      env.report?.(gone);
    }
    response = await createOnce(service, providerFamily.family, desired, (message) => env.report?.(message), startedAt);
    id = String(response.id);
  }
  response = await finish(env, parts, service, id, response, inputs, limits);
  return { id, outs: outputsOf(parts, response, members) };
}
