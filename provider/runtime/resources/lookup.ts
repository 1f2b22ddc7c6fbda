// Lookups: find one existing resource of a family by name or id, in the program, as `pulumi.Output` or promise.
import * as pulumi from "@pulumi/pulumi";
import { AudienceApiError, AudienceClient } from "pulumi-audience/sdk/client";
import { fromWire, families, type Collection } from "pulumi-audience/sdk/contract";
import { explained } from "../lifecycle/service-client.ts";
import { credentialsFor, readSettings, type Credentials } from "../lifecycle/settings.ts";
import type { Result } from "./types.ts";

export interface LookupArgs {
  /** The resource's exact name. */
  name?: string;
  /** The resource's id. */
  id?: string;
  /** Entry of `audience:accounts` to look in; the default account when absent. */
  account?: string;
}

export type LookupInputs = { [K in keyof LookupArgs]?: pulumi.Input<LookupArgs[K]> };

function settingsFromStack() {
  return readSettings((key) => {
    const [namespace, name] = key.split(":");
    return name === undefined ? undefined : new pulumi.Config(namespace).get(name);
  });
}

/** The one resource of `collection` named (or with the id) given; fails listing the names seen otherwise. */
export async function lookup<C extends Collection>(collection: C, args: LookupArgs): Promise<Result<C>> {
  return lookupIn(() => credentialsFor(settingsFromStack(), args.account), collection, args);
}

/** `lookup` in the account `credentials` names (the program's stack config or a provider plugin's). */
export async function lookupIn<C extends Collection>(credentials: () => Credentials, collection: C, args: LookupArgs): Promise<Result<C>> {
  const what = families[collection].className;
  if ((args.name === undefined) === (args.id === undefined)) {
    throw new Error(`get${what}: give exactly one of name or id`);
  }
  const client = new AudienceClient(credentials());
  try {
    const listed = (await client.list(collection, args.id !== undefined ? { ids: [args.id] } : {})) as Record<string, unknown>[];
    const found = listed.filter((r) => (args.id !== undefined ? r.id === args.id : r.name === args.name));
    if (found.length !== 1) {
      const wanted = args.id !== undefined ? `id ${args.id}` : `name ${JSON.stringify(args.name)}`;
      const seen = listed.map((r) => JSON.stringify(r.name)).join(", ") || "none";
      throw new Error(`get${what}: ${found.length === 0 ? "no" : found.length} ${collection} with ${wanted}${args.account ? ` in account ${args.account}` : ""}; names seen: ${seen}`);
    }
    return fromWire(families[collection].response, found[0]) as Result<C>;
  } catch (error) {
    // One line naming the account, as a resource's failure reads; not the client's error object with its fields.
    if (error instanceof AudienceApiError) throw new Error(`get${what}: ${(explained(error, families[collection], args.account) as Error).message}`);
    throw error;
  } finally {
    await client.close();
  }
}

/** The promise and `Output` forms of a family's lookup. */
export function lookups<C extends Collection>(collection: C) {
  const get = (args: LookupArgs): Promise<Result<C>> => lookup(collection, args);
  const getOutput = (args: LookupInputs): pulumi.Output<Result<C>> =>
    pulumi.output(args).apply((plain) => lookup(collection, plain as LookupArgs)) as pulumi.Output<Result<C>>;
  return { get, getOutput };
}
