// The lookup API: find one person by what the caller knows of them and answer with the scope's payload.
// A match needs an e-mail (or its hash), or a phone and last name, or an address with city and state.
import { LOOKUP_MATCHABLE, lookupRecord, lookupRecordMatchable } from "pulumi-audience/sdk/contract";
import type { Scalar } from "../world/conditions.ts";
import type { World } from "../world/population.ts";
import { docs, obj, type Doc, type Resources } from "../world/resources.ts";
import { payloadColumns, scopePopulation } from "./scope.ts";
import { carriesLift, normalizeEmail, normalizePhone, sha256 } from "./target.ts";

const LOOKUP_FIELDS = Object.keys(lookupRecord.shape) as (keyof typeof lookupRecord.shape)[];
/** One identifying record with every field a string (address lines joined). */
export type LookupRecord = Partial<Record<(typeof LOOKUP_FIELDS)[number], string>>;
export type MatchType = "email" | "email_hash" | "phone_and_last_name" | "address";
export const IDENTITY_PROVIDER = "identity_graph";

interface LookupIndex {
  email: Map<string, number>;
  emailHash: Map<string, number>;
  phoneLast: Map<string, number>;
  address: Map<string, number[]>;
}

const norm = (text: string) => text.trim().toLowerCase().replace(/\s+/g, " ");
const addressKey = (line: string, city: string, state: string) => `${norm(line)}|${norm(city)}|${norm(state)}`;

function indexOf(world: World): LookupIndex {
  return world.remember("lookup-index", () => {
    const index: LookupIndex = { email: new Map(), emailHash: new Map(), phoneLast: new Map(), address: new Map() };
    const id = world.identity;
    for (let p = 0; p < world.size; p++) {
      for (const email of [id.email(p), id.altEmail(p)]) {
        if (!email) continue;
        index.email.set(normalizeEmail(email), p);
        index.emailHash.set(sha256(normalizeEmail(email)), p);
      }
      const phone = id.phone(p);
      if (phone) index.phoneLast.set(`${normalizePhone(phone)}|${norm(id.lastName(p))}`, p);
      const city = world.cityOf(p);
      const key = addressKey(id.houseNumberAndStreet(world.residenceOf[p] as number), city.name, city.state);
      const residents = index.address.get(key);
      if (residents) residents.push(p);
      else index.address.set(key, [p]);
    }
    return index;
  });
}

/** Which records a request carries: its own identifying fields and each of its identity_sets. */
export function lookupRecords(body: Doc): LookupRecord[] {
  const own: LookupRecord = {};
  for (const field of LOOKUP_FIELDS) if (typeof body[field] === "string") own[field] = body[field];
  const sets = Array.isArray(body.identity_sets) ? docs(body.identity_sets) : Object.values(obj(body.identity_sets) ?? {}).filter((v): v is Doc => !!obj(v));
  const records = [own, ...sets.map((set) => {
    const record: LookupRecord = {};
    for (const field of LOOKUP_FIELDS) {
      const value = set[field];
      // house_number_and_street may come as an array of lines.
      if (typeof value === "string") record[field] = value;
      else if (Array.isArray(value)) record[field] = value.filter((v) => typeof v === "string").join(" ");
    }
    return record;
  })];
  return records.filter((r) => Object.keys(r).length > 0);
}

/** The first person a record identifies, and how. */
export function matchRecord(world: World, record: LookupRecord, eligible: (p: number) => boolean): { person: number; matchType: MatchType } | undefined {
  const index = indexOf(world);
  const found = (person: number | undefined, matchType: MatchType) => (person !== undefined && eligible(person) ? { person, matchType } : undefined);
  if (record.email) {
    const hit = found(index.email.get(normalizeEmail(record.email)), "email");
    if (hit) return hit;
  }
  if (record.email_hash) {
    const hit = found(index.emailHash.get(record.email_hash.trim().toLowerCase()), "email_hash");
    if (hit) return hit;
  }
  if (record.phone && record.person_last_name) {
    const hit = found(index.phoneLast.get(`${normalizePhone(record.phone)}|${norm(record.person_last_name)}`), "phone_and_last_name");
    if (hit) return hit;
  }
  if (record.house_number_and_street && record.city && record.state) {
    const residents = (index.address.get(addressKey(record.house_number_and_street, record.city, record.state)) ?? []).filter(eligible);
    // The resident named by the request when there is one, else the household's first member.
    const named = residents.find((p) => (!record.person_first_name || norm(world.identity.firstName(p)) === norm(record.person_first_name))
      && (!record.person_last_name || norm(world.identity.lastName(p)) === norm(record.person_last_name)));
    const person = named ?? residents[0];
    if (person !== undefined) return { person, matchType: "address" };
  }
  return undefined;
}

export const INSUFFICIENT_IDENTITY = `not enough to identify a person: give ${LOOKUP_MATCHABLE}`;

export type LookupAnswer = Record<string, Scalar | Scalar[]>;

/**
 * The answer to a lookup: the request's fields echoed, then the payload columns, `match_type` and
 * `identity_provider`; an unmatched person gets an `error` text instead.
 */
export function lookup(world: World, target: Doc, scope: Doc, resources: Resources, body: Doc): LookupAnswer {
  const echo: LookupAnswer = {};
  for (const [key, value] of Object.entries(body)) if (key !== "identity_sets" && (value === null || typeof value !== "object")) echo[key] = value as Scalar;
  const records = lookupRecords(body);
  if (!records.some(lookupRecordMatchable)) return { ...echo, error: INSUFFICIENT_IDENTITY };
  const population = world.remember(`lookup-population:${JSON.stringify([scope.population, scope.updated_at])}`, () => {
    const flags = new Uint8Array(world.size);
    for (const p of scopePopulation(world, scope, resources)) flags[p] = 1;
    return flags;
  });
  let match: ReturnType<typeof matchRecord>;
  for (const record of records) if ((match = matchRecord(world, record, (p) => population[p] === 1))) break;
  if (!match) return { ...echo, error: "no person in the scope's population matches the given identity" };
  // A lookup target whose transform predates the lift column answers the key with null.
  const lift = carriesLift(target);
  const answer: LookupAnswer = { ...echo };
  for (const column of payloadColumns(world, scope, resources, { lift: true, humanReadable: target.human_readable === true })) {
    const isLift = column.name.endsWith("_propensity_lift");
    answer[column.name] = isLift && !lift ? null : column.value(match.person);
  }
  answer.match_type = match.matchType;
  answer.identity_provider = IDENTITY_PROVIDER;
  return answer;
}
