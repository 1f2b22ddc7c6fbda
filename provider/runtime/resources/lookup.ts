// Lookups: find one existing resource of a family by name or id, in the program, as `pulumi.Output` or promise.
import * as pulumi from "@pulumi/pulumi";
import { AudienceClient } from "pulumi-audience/sdk/client";
import { fromWire, families, type Collection } from "pulumi-audience/sdk/contract";
import { credentialsFor, readSettings } from "../lifecycle/settings.ts";
import type { State } from "./types.ts";

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
export async function lookup<C extends Collection>(collection: C, args: LookupArgs): Promise<State<C>> {
  const what = families[collection].className;
  if ((args.name === undefined) === (args.id === undefined)) {
    throw new Error(`get${what}: give exactly one of name or id`);
  }
  const client = new AudienceClient(credentialsFor(settingsFromStack(), args.account));
  try {
    const listed = (await client.list(collection, args.id !== undefined ? { ids: [args.id] } : {})) as Record<string, unknown>[];
    const found = listed.filter((r) => (args.id !== undefined ? r.id === args.id : r.name === args.name));
    if (found.length !== 1) {
      const wanted = args.id !== undefined ? `id ${args.id}` : `name ${JSON.stringify(args.name)}`;
      const seen = listed.map((r) => JSON.stringify(r.name)).join(", ") || "none";
      throw new Error(`get${what}: ${found.length === 0 ? "no" : found.length} ${collection} with ${wanted}${args.account ? ` in account ${args.account}` : ""}; names seen: ${seen}`);
    }
    return fromWire(families[collection].response, found[0]) as State<C>;
  } finally {
    await client.close();
  }
}

/** The promise and `Output` forms of a family's lookup. */
export function lookups<C extends Collection>(collection: C) {
  const get = (args: LookupArgs): Promise<State<C>> => lookup(collection, args);
  const getOutput = (args: LookupInputs): pulumi.Output<State<C>> =>
    pulumi.output(args).apply((plain) => lookup(collection, plain as LookupArgs)) as pulumi.Output<State<C>>;
  return { get, getOutput };
}
