// Lookups: find one existing resource of a family by name or id, in the program, as `pulumi.Output` or promise.
// The service's client and the contract load with a program's first lookup, not with the program.
import * as pulumi from "@pulumi/pulumi";
import type { LookupArgs } from "../lifecycle/lookup.ts";
import type { Collection } from "pulumi-audience/sdk/contract";
import { ProgramError, programError } from "./program-error.ts";
import type { Result } from "./types.ts";

export type { LookupArgs } from "../lifecycle/lookup.ts";
export type LookupInputs = { [K in keyof LookupArgs]?: pulumi.Input<LookupArgs[K]> };

/** A stack config value by its key (`audience:apiKey`). */
function stackConfig(key: string): string | undefined {
  const [namespace, name] = key.split(":");
  return name === undefined ? undefined : new pulumi.Config(namespace).get(name);
}

/**
 * Each account's check (its key and URL, asked of the service once), made once a program: the lookups of an account
 * that cannot be used all fail with the one error, naming the config key, which Pulumi reports once; and a URL where
 * nothing listens fails in seconds, not after each lookup's whole retry budget.
 */
const accountErrors = new Map<string, Promise<ProgramError | undefined>>();

/**
 * The one resource of `collection` named (or with the id) given, in the account the program's stack config names. A
 * failure stops the program with the lookup's message alone: as an input of resources, it would otherwise reach the
 * user through Pulumi's serializer, with its stack and one prefix per resource on the way.
 */
export async function lookup<C extends Collection>(collection: C, args: LookupArgs): Promise<Result<C>> {
  const [{ lookupIn }, { credentialsFor, readSettings }, { accountChecks }] = await Promise.all([
    import("../lifecycle/lookup.ts"), import("../lifecycle/settings.ts"), import("../lifecycle/config-check.ts"),
  ]);
  try {
    const settings = readSettings(stackConfig);
    // By the credentials themselves: a process that changes its config (a test) checks the new ones.
    const key = JSON.stringify([args.account, args.account === undefined ? settings.default : settings.accounts[args.account]]);
    let checked = accountErrors.get(key);
    if (!checked) {
      checked = accountChecks(() => settings).problem(args.account).then((problem) => problem && new ProgramError(problem.reason));
      accountErrors.set(key, checked);
    }
    const unusable = await checked;
    if (unusable) throw unusable;
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
