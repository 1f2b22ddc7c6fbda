// Lookups: find one existing resource of a family by name or id, in the program, as `pulumi.Output` or promise.
// The service's client and the contract load with a program's first lookup, not with the program.
import * as pulumi from "@pulumi/pulumi";
import type { LookupArgs } from "../lifecycle/lookup.ts";
import type { Collection } from "pulumi-audience/sdk/contract";
import { programError } from "./program-error.ts";
import type { Result } from "./types.ts";

export type { LookupArgs } from "../lifecycle/lookup.ts";
export type LookupInputs = { [K in keyof LookupArgs]?: pulumi.Input<LookupArgs[K]> };

/** A stack config value by its key (`audience:apiKey`). */
function stackConfig(key: string): string | undefined {
  const [namespace, name] = key.split(":");
  return name === undefined ? undefined : new pulumi.Config(namespace).get(name);
}

/**
 * The one resource of `collection` named (or with the id) given, in the account the program's stack config names. A
 * failure stops the program with the lookup's message alone: as an input of resources, it would otherwise reach the
 * user through Pulumi's serializer, with its stack and one prefix per resource on the way.
 */
export async function lookup<C extends Collection>(collection: C, args: LookupArgs): Promise<Result<C>> {
  const [{ lookupIn }, { credentialsFor, readSettings }] = await Promise.all([import("../lifecycle/lookup.ts"), import("../lifecycle/settings.ts")]);
  try {
    const settings = readSettings(stackConfig);
    return await lookupIn(() => credentialsFor(settings, args.account), collection, args, settings.maxRetries);
  } catch (error) {
    throw programError(error);
  }
}

/** The promise and `Output` forms of a family's lookup. */
export function lookups<C extends Collection>(collection: C) {
  const get = (args: LookupArgs): Promise<Result<C>> => lookup(collection, args);
  const getOutput = (args: LookupInputs): pulumi.Output<Result<C>> =>
    pulumi.output(args).apply((plain) => lookup(collection, plain as LookupArgs)) as pulumi.Output<Result<C>>;
  return { get, getOutput };
}
