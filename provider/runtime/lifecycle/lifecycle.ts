// The one check / diff / create / read / update / delete of every resource family, driven by its description;
// a family's own steps (see families/family.ts) stand in for the generic ones where it has them. Each operation is
// its own module over the shared parts (parts.ts, outputs.ts, build.ts); this binds them to a host's environment.
// Inputs and outputs are camelCase as a program writes them; the wire is snake_case; the contract converts.
import { check } from "./check.ts";
import { create } from "./create.ts";
import { remove } from "./delete.ts";
import { diff } from "./diff.ts";
import type { Environment, StepLimits } from "./environment.ts";
import { explainingNoAccess } from "./no-access.ts";
import { read } from "./read.ts";
import type { Props } from "./shape.ts";
import { update } from "./update.ts";

export function createLifecycle(env: Environment) {
  return {
    check: (olds: Props, news: Props) => check(env, olds, news),
    diff: (id: string, olds: Props, news: Props) => diff(env, id, olds, news),
    create: (inputs: Props, limits?: StepLimits) => create(env, inputs, limits),
    read: (id: string, props: Props, recordedInputs?: Props) => explainingNoAccess(props, () => read(env, id, props, recordedInputs)),
    update: (id: string, olds: Props, news: Props, limits?: StepLimits) => explainingNoAccess(olds, () => update(env, id, olds, news, limits)),
    delete: (id: string, props: Props) => explainingNoAccess(props, () => remove(env, id, props)),
  };
}
