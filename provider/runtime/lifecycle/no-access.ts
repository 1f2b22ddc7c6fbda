// A resource the stack recorded that its key cannot reach (403 FORBIDDEN on the resource itself) is another
// account's: made with another key, the stack's key changed since, or `pulumi state move` brought it from a stack of
// another account. The service's refusal alone does not say so, nor what to do.
import { ForbiddenError } from "pulumi-audience/sdk/client";
import { accountLabel } from "./service-client.ts";
import { split } from "./parts.ts";
import type { Props } from "./shape.ts";

/** `step` on the recorded resource `props`, a refusal of access to it saying why and the ways on. */
export async function explainingNoAccess<T>(props: Props, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ForbiddenError) || error.code !== "FORBIDDEN") throw error;
    const { providerFamily, controls } = split(props);
    const { className, path } = providerFamily.family;
    if (!error.path.startsWith(`/${path}/`)) throw error;
    throw new Error(`${error.message}: the key of ${accountLabel(controls.account)} has no access to this ${className}, which is another account's `
      + "(made with another key: the stack's key changed since, or `pulumi state move` brought it from a stack of another account); "
      + "give the stack that account's key, or `pulumi state delete` it here and adopt it (adoptId) in a stack of that account", { cause: error });
  }
}
