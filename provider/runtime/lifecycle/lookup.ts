// A family's lookup against the service: one existing resource by name or id. No @pulumi/pulumi here: the plugin
// serves lookups too, and loading the Pulumi runtime's index would cost its every start half a second.
import { AudienceApiError, AudienceClient } from "pulumi-audience/sdk/client";
import { fromWire, families, id, type Collection } from "pulumi-audience/sdk/contract";
import type { Result } from "../resources/types.ts";
import { explained } from "./service-client.ts";
import { DEFAULT_MAX_RETRIES, type Credentials } from "./settings.ts";

export interface LookupArgs {
  /** The resource's exact name. */
  name?: string;
  /** The resource's id. */
  id?: string;
  /** Entry of `audience:accounts` to look in; the default account when absent. */
  account?: string;
}

/** The names a failed look-up by name saw: the first few, and how many more (an account may hold thousands). */
const NAMES_SHOWN = 10;
function namesSeen(listed: Record<string, unknown>[]): string {
  if (listed.length === 0) return "none";
  const shown = listed.slice(0, NAMES_SHOWN).map((r) => JSON.stringify(r.name)).join(", ");
  return listed.length > NAMES_SHOWN ? `${shown} and ${listed.length - NAMES_SHOWN} more` : shown;
}

/** The one resource of `collection` named (or with the id) given, in the account `credentials` names. */
export async function lookupIn<C extends Collection>(credentials: () => Credentials, collection: C, args: LookupArgs, maxRetries = DEFAULT_MAX_RETRIES): Promise<Result<C>> {
  const what = families[collection].className;
  if ((args.name === undefined) === (args.id === undefined)) {
    throw new Error(`get${what}: give exactly one of name or id`);
  }
  // Said before any request, in the lookup's words, rather than as the list's query parameter the service refuses.
  if (args.id !== undefined && !families[collection].singleton && !id.safeParse(args.id).success) throw new Error(`get${what}: id ${JSON.stringify(args.id)} is not an id of the service (a uuid); to find a resource by its name, give name`);
  let client: AudienceClient;
  try {
    client = new AudienceClient({ ...credentials(), retry: { maxRetries } });
  } catch (error) {
    // No key or URL for the account: said as the lookup's, like its other failures.
    throw new Error(`get${what}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const listed = (await client.list(collection, args.id !== undefined ? { ids: [args.id] } : {})) as Record<string, unknown>[];
    const found = listed.filter((r) => (args.id !== undefined ? r.id === args.id : r.name === args.name));
    if (found.length !== 1) {
      const wanted = args.id !== undefined ? `id ${args.id}` : `name ${JSON.stringify(args.name)}`;
      // A look-up by id lists only that id: the account's names are not known, so none are offered. Several of one
      // name are told apart by their ids.
      const seen = args.id !== undefined ? "" : found.length > 1 ? ` (ids ${found.map((r) => String(r.id)).join(", ")}): look it up by id instead` : `; names seen: ${namesSeen(listed)}`;
      throw new Error(`get${what}: ${found.length === 0 ? "no" : found.length} ${collection} with ${wanted}${args.account ? ` in account ${args.account}` : ""}${seen}`);
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
