// Update: the merge patch from what was recorded to what is declared (or the family's own update), an archived
// resource unarchived first; then the optional wait for its build.
import type * as pulumi from "@pulumi/pulumi";
import { jsonEqual, mergePatch } from "pulumi-audience/sdk/contract";
import { unlessUnknown } from "./ambiguous.ts";
import { failedBuild, finish } from "./build.ts";
import { CONTROL_KEYS } from "./controls.ts";
import type { Environment, StepLimits } from "./environment.ts";
import { archivedAt, outputsOf } from "./outputs.ts";
import { controlsOf, declaredBody, recordedBody, split } from "./parts.ts";
import { explained } from "./service-client.ts";
import type { Props } from "./shape.ts";

export async function update(env: Environment, id: string, olds: Props, news: Props, limits: StepLimits = {}): Promise<pulumi.dynamic.UpdateResult> {
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
    // A failed build is re-run (a patch re-runs it too), else waiting would only read the failure again.
    if (patch === undefined && failedBuild(parts, olds) !== undefined) {
      await service.client.forceUpdate(providerFamily.family, id).catch((error: unknown) => {
        throw explained(error, providerFamily.family, parts.controls.account);
      });
    }
    response = patch === undefined ? await service.get(providerFamily.family, id)
      : await unlessUnknown(`the update of ${providerFamily.family.className} ${id}`, () => service.update(providerFamily.family, id, patch as Props));
  }
  response = await finish(env, parts, service, id, response, news, limits);
  return { outs: outputsOf(parts, response, parts.members) };
}

/** Recorded outputs without the controls, which the new inputs restate. */
function withoutControls(olds: Props): Props {
  return Object.fromEntries(Object.entries(olds).filter(([key]) => !(CONTROL_KEYS as readonly string[]).includes(key)));
}
