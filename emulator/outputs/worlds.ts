// The synthetic population of each account (`startEmulator({ world })` shapes them all), made on first use.
import type { ResourceReader } from "../context.ts";
import type { ServiceState } from "../state.ts";
import { generateWorld, type World, type WorldOptions } from "../world/population.ts";
import type { Resources } from "../world/resources.ts";

/** `startEmulator({ world })`: the synthetic population every account gets. */
export function worldOptions(value: unknown): WorldOptions {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object") throw new Error("startEmulator({ world }) must be an object { size?, seed?, today? }");
  const { size, seed, today } = value as Record<string, unknown>;
  if (size !== undefined && (!Number.isInteger(size) || (size as number) < 0)) throw new Error("world.size must be a non-negative integer");
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error("world.seed must be an integer");
  if (today !== undefined && (typeof today !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(today))) throw new Error("world.today must be a date in YYYY-MM-DD form");
  return { size: size as number | undefined, seed: seed as number | undefined, today: today as string | undefined };
}

/** One world per account, kept until the account is forgotten. */
export function worldsOf(state: ServiceState, value: unknown): (accountId: string) => World {
  const options = worldOptions(value);
  const worlds = new Map<string, World>();
  return (accountId) => {
    let world = worlds.get(accountId);
    if (!world) {
      // Accounts forgotten by a reset give their worlds back.
      for (const known of worlds.keys()) if (!state.account(known)) worlds.delete(known);
      worlds.set(accountId, (world = generateWorld(options)));
    }
    return world;
  };
}

/** An account's resources as the outputs engine reads them. */
export function resourcesOf(reader: ResourceReader, accountId: string): Resources {
  return {
    get: (collection, id) => reader.get(accountId, collection, id),
    list: (collection) => reader.list(accountId, collection),
  };
}
