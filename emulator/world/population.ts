// The synthetic population of one account: people, the residences they share, their identities, traits and
// events, stored column by column so a million people stay a handful of typed arrays. Streams are generated
// on first use. The same options always give the same world.
import { CITIES, type City } from "./geo.ts";
import { column, setValue, typeOf, valueAt, type Column, type ValueType } from "./columns.ts";
import { epochDay, type Scalar } from "./conditions.ts";
import { hashText, mix, rng, unit, type Rng } from "./random.ts";

export interface WorldOptions {
  /** Number of people; default 5000. */
  size?: number;
  seed?: number;
  /** The world's "today" (`YYYY-MM-DD`): recency and event dates count back from it. */
  today?: string;
}

export const DEFAULT_WORLD_SIZE = 5000;
export const DEFAULT_TODAY = "2026-01-01";
/** Derived results (memberships, scores) a world keeps: a million people's scores are a few MB each. */
const MEMO_ENTRIES = 64;

export interface StreamProperty {
  name: string;
  type: ValueType;
}

/** Events of one stream: person `p` owns events `offsets[p]` to `offsets[p + 1] - 1`. */
export interface Stream {
  name: string;
  properties: StreamProperty[];
  offsets: Int32Array;
  columns: Map<string, Column>;
}

export interface Residences {
  count: number;
  city: Int32Array;
  postcode: Int32Array;
  latitude: Float64Array;
  longitude: Float64Array;
  houseNumber: Int32Array;
  street: Int32Array;
}

export interface Identity {
  email: (person: number) => string | null;
  /** A second e-mail some people carry: the extra identity of `output_multiple_identities`. */
  altEmail: (person: number) => string | null;
  phone: (person: number) => string | null;
  firstName: (person: number) => string;
  lastName: (person: number) => string;
  houseNumberAndStreet: (residence: number) => string;
}

export class World {
  readonly size: number;
  readonly seed: number;
  /** Epoch day of the world's today. */
  readonly today: number;
  readonly residenceOf: Int32Array;
  readonly residences: Residences;
  readonly cities: readonly City[];
  /** 1 where a person is known only at address-level precision (no person-level attribute values). */
  readonly addressLevel: Uint8Array;
  readonly identity: Identity;
  readonly traits: Map<string, Column>;
  /** Memo of derived results (memberships, scores) keyed by what they were computed from. */
  readonly memo = new Map<string, unknown>();
  private readonly streams = new Map<string, Stream>();
  private readonly makeStream: (name: string, declared: readonly StreamProperty[]) => Stream;

  constructor(parts: {
    size: number; seed: number; today: number; residenceOf: Int32Array; residences: Residences; cities: readonly City[];
    addressLevel: Uint8Array; identity: Identity; traits: Map<string, Column>; makeStream: (world: World, name: string, declared: readonly StreamProperty[]) => Stream;
  }) {
    this.size = parts.size;
    this.seed = parts.seed;
    this.today = parts.today;
    this.residenceOf = parts.residenceOf;
    this.residences = parts.residences;
    this.cities = parts.cities;
    this.addressLevel = parts.addressLevel;
    this.identity = parts.identity;
    this.traits = parts.traits;
    this.makeStream = (name, declared) => parts.makeStream(this, name, declared);
  }

  /** A stream's events, generated on first use; `declared` adds the properties the account's stream declares. */
  stream(name: string, declared: readonly StreamProperty[] = []): Stream {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = this.makeStream(name, declared);
      this.streams.set(name, stream);
    }
    return stream;
  }

  trait(name: string, person: number): Scalar {
    const col = this.traits.get(name);
    return col ? valueAt(col, person) : null;
  }

  cityOf(person: number): City {
    return this.cities[this.residences.city[this.residenceOf[person] as number] as number] as City;
  }

  postcodeOf(person: number): string {
    return formatPostcode(this.residences.postcode[this.residenceOf[person] as number] as number);
  }

  /** Memoizes a derived value on the world, keeping the most recently used few. */
  remember<T>(key: string, compute: () => T): T {
    if (this.memo.has(key)) {
      const value = this.memo.get(key) as T;
      this.memo.delete(key);
      this.memo.set(key, value);
      return value;
    }
    const value = compute();
    this.memo.set(key, value);
    if (this.memo.size > MEMO_ENTRIES) this.memo.delete(this.memo.keys().next().value as string);
    return value;
  }
}

export function formatPostcode(code: number): string {
  return String(code).padStart(5, "0");
}

const FIRST_NAMES = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen", "Daniel", "Lisa", "Matthew", "Nancy", "Anthony", "Betty", "Mark", "Sandra", "Paul", "Ashley", "Steven", "Emily", "Andrew", "Donna", "Kenneth", "Michelle", "Joshua", "Carol", "Kevin", "Amanda", "Brian", "Melissa", "George", "Deborah", "Timothy", "Stephanie", "Ronald", "Rebecca", "Jason", "Laura", "Ryan", "Sharon", "Jacob", "Cynthia", "Gary", "Kathleen", "Nicholas", "Amy", "Eric", "Angela", "Luis", "Maria", "Wei", "Mei", "Arjun", "Priya", "Omar", "Fatima", "Hiroshi", "Yuki"];
const LAST_NAMES = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts", "Chen", "Patel", "Kim", "Singh", "Okafor", "Tanaka"];
const STREETS = ["Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Sunset", "Lincoln", "River", "Church", "Highland", "Jackson", "Franklin", "Meadow", "Forest", "Spring"];
const STREET_KINDS = ["St", "Ave", "Rd", "Blvd", "Ln", "Dr", "Ct", "Way"];

/** Properties of the streams every generated world knows; any other stream name gets the generic set. */
export const STREAM_CATALOG: Record<string, { properties: StreamProperty[]; values: Record<string, string[]>; rate: number }> = {
  transactions: {
    properties: [
      { name: "datetime", type: "date" }, { name: "value", type: "double" }, { name: "amount", type: "double" },
      { name: "category", type: "string" }, { name: "product", type: "string" }, { name: "channel", type: "string" },
    ],
    values: {
      category: ["apparel", "electronics", "grocery", "home", "beauty", "sports"], channel: ["online", "store", "app"],
      product: ["shoes", "shirt", "laptop", "phone", "coffee", "sofa", "lamp", "racket"],
    },
    rate: 2.5,
  },
  web_visits: {
    properties: [{ name: "datetime", type: "date" }, { name: "page", type: "string" }, { name: "duration_seconds", type: "long" }],
    values: { page: ["home", "product", "cart", "checkout", "account", "blog"] },
    rate: 4,
  },
  email_engagement: {
    properties: [{ name: "datetime", type: "date" }, { name: "action", type: "string" }, { name: "campaign", type: "string" }],
    values: { action: ["open", "click", "unsubscribe"], campaign: ["spring_sale", "summer_sale", "holiday", "welcome"] },
    rate: 3,
  },
};
const GENERIC_STREAM = {
  properties: [{ name: "datetime", type: "date" }, { name: "value", type: "double" }, { name: "type", type: "string" }] as StreamProperty[],
  values: { type: ["a", "b", "c"] } as Record<string, string[]>,
  rate: 1.5,
};
/** How far back generated events go. */
export const EVENT_HISTORY_DAYS = 730;

/** Traits of a generated world; `ig/` names are provided attributes, absent for address-level people. */
export const TRAIT_CATALOG: readonly { name: string; type: ValueType; values?: string[] }[] = [
  { name: "lifetime_value", type: "double" },
  { name: "loyalty_tier", type: "string", values: ["bronze", "silver", "gold", "platinum"] },
  { name: "newsletter_opt_in", type: "boolean" },
  { name: "ig/age", type: "long" },
  { name: "ig/household_income_v2", type: "long" },
  { name: "ig/individual_marital_status", type: "string", values: ["single", "married", "divorced", "widowed"] },
  { name: "ig/length_of_residence_v2", type: "long" },
];

const toDay = epochDay;

/** Generates the deterministic world of `options`. */
export function generateWorld(options: WorldOptions = {}): World {
  const size = options.size ?? DEFAULT_WORLD_SIZE;
  if (!Number.isInteger(size) || size < 0) throw new Error(`world size must be a non-negative integer, got ${size}`);
  const seed = (options.seed ?? 1) >>> 0;
  const today = epochDay(options.today ?? DEFAULT_TODAY);
  const r = rng(seed);

  // Residences hold one to five people; most hold one or two.
  const residenceOf = new Int32Array(size);
  const firstName = new Int32Array(size);
  const lastName = new Int32Array(size);
  const addressLevel = new Uint8Array(size);
  const maxResidences = Math.max(1, size);
  const res = {
    city: new Int32Array(maxResidences), postcode: new Int32Array(maxResidences), latitude: new Float64Array(maxResidences),
    longitude: new Float64Array(maxResidences), houseNumber: new Int32Array(maxResidences), street: new Int32Array(maxResidences),
  };
  let residence = -1;
  let left = 0;
  let familyName = 0;
  for (let p = 0; p < size; p++) {
    if (left === 0) {
      residence++;
      left = r.pick([1, 1, 1, 2, 2, 2, 3, 3, 4, 5]);
      familyName = r.int(0, LAST_NAMES.length - 1);
      const city = r.int(0, CITIES.length - 1);
      const c = CITIES[city] as City;
      const dLat = (r.float() - 0.5) * 0.24;
      const dLon = (r.float() - 0.5) * 0.3;
      res.city[residence] = city;
      res.latitude[residence] = Math.round((c.latitude + dLat) * 1e6) / 1e6;
      res.longitude[residence] = Math.round((c.longitude + dLon) * 1e6) / 1e6;
      // A 4 x 5 grid of postcodes over each city.
      res.postcode[residence] = c.postcode + Math.floor((dLat + 0.12) / 0.06) * 5 + Math.floor((dLon + 0.15) / 0.06);
      res.houseNumber[residence] = r.int(1, 9999);
      res.street[residence] = r.int(0, STREETS.length * STREET_KINDS.length - 1);
    }
    left--;
    residenceOf[p] = residence;
    firstName[p] = r.int(0, FIRST_NAMES.length - 1);
    lastName[p] = r.float() < 0.75 ? familyName : r.int(0, LAST_NAMES.length - 1);
    addressLevel[p] = r.float() < 0.1 ? 1 : 0;
  }
  const residenceCount = residence + 1;
  const residences: Residences = {
    count: residenceCount,
    city: res.city.slice(0, residenceCount), postcode: res.postcode.slice(0, residenceCount),
    latitude: res.latitude.slice(0, residenceCount), longitude: res.longitude.slice(0, residenceCount),
    houseNumber: res.houseNumber.slice(0, residenceCount), street: res.street.slice(0, residenceCount),
  };

  const first = (p: number) => FIRST_NAMES[firstName[p] as number] as string;
  const last = (p: number) => LAST_NAMES[lastName[p] as number] as string;
  const idSeed = mix(seed, 0x1d);
  const identity: Identity = {
    firstName: first,
    lastName: last,
    email: (p) => (unit(idSeed, p) < 0.08 ? null : `${first(p)}.${last(p)}${p}@example.com`.toLowerCase()),
    altEmail: (p) => (unit(idSeed ^ 0x55, p) < 0.15 ? `${first(p)[0]}${last(p)}${p}@mail.example.org`.toLowerCase() : null),
    phone: (p) => (unit(idSeed ^ 0xaa, p) < 0.1 ? null : `+1${200 + (mix(idSeed, p) % 800)}${String(mix(idSeed ^ 7, p) % 10_000_000).padStart(7, "0")}`),
    houseNumberAndStreet: (h) => {
      const s = residences.street[h] as number;
      return `${residences.houseNumber[h]} ${STREETS[s % STREETS.length]} ${STREET_KINDS[Math.floor(s / STREETS.length)]}`;
    },
  };

  const traits = new Map<string, Column>();
  for (const t of TRAIT_CATALOG) traits.set(t.name, column(t.type, size, t.values ? [...t.values] : []));
  const trait = (name: string) => traits.get(name) as Column;
  for (let p = 0; p < size; p++) {
    const h = residenceOf[p] as number;
    const engagement = unit(seed ^ 0xe1, p);
    if (r.float() >= 0.05) trait("lifetime_value").data[p] = Math.round(Math.exp(3 + 3 * engagement + r.float()) * 100) / 100;
    if (r.float() >= 0.2) trait("loyalty_tier").data[p] = Math.min(3, Math.floor(engagement * 4));
    trait("newsletter_opt_in").data[p] = r.float() < 0.4 ? 1 : 0;
    if (addressLevel[p] === 0) {
      trait("ig/age").data[p] = r.int(18, 90);
      trait("ig/household_income_v2").data[p] = (15 + (mix(seed ^ 0x1c, h) % 236)) * 1000;
      trait("ig/individual_marital_status").data[p] = r.int(0, 3);
      trait("ig/length_of_residence_v2").data[p] = mix(seed ^ 0x1e, h) % 41;
    }
  }

  return new World({
    size, seed, today, residenceOf, residences, cities: CITIES, addressLevel, identity, traits,
    makeStream: generateStream,
  });
}

function generateStream(world: World, name: string, declared: readonly StreamProperty[]): Stream {
  const known = STREAM_CATALOG[name] ?? (declared.length > 0 ? { properties: [{ name: "datetime", type: "date" as const }], values: {}, rate: 2 } : GENERIC_STREAM);
  const extra = declared.filter((d) => !known.properties.some((k) => k.name === d.name));
  // Declared text properties take a handful of values named after the property.
  const def = {
    ...known,
    properties: [...known.properties, ...extra],
    values: { ...known.values, ...Object.fromEntries(extra.map((d) => [d.name, [1, 2, 3, 4, 5].map((k) => `${d.name}_${k}`)])) },
  };
  const r: Rng = rng(world.seed ^ hashText(name));
  const offsets = new Int32Array(world.size + 1);
  // Engaged people have more events; counts first, so the columns are allocated once.
  for (let p = 0; p < world.size; p++) {
    const engagement = unit(world.seed ^ 0xe1, p);
    const count = r.float() < 0.25 ? 0 : r.int(0, Math.round(def.rate * 2 * engagement + 1));
    offsets[p + 1] = (offsets[p] as number) + count;
  }
  const total = offsets[world.size] as number;
  const columns = new Map<string, Column>();
  for (const prop of def.properties) columns.set(prop.name, column(prop.type, total, [...(def.values[prop.name] ?? [])]));
  for (const prop of def.properties) {
    const col = columns.get(prop.name) as Column;
    for (let e = 0; e < total; e++) {
      if (prop.type === "date") col.data[e] = world.today - r.int(0, EVENT_HISTORY_DAYS - 1);
      else if (prop.type === "string") col.data[e] = r.int(0, col.categories.length - 1);
      else if (prop.type === "long") col.data[e] = r.int(5, 900);
      else if (prop.type === "boolean") col.data[e] = r.int(0, 1);
      else col.data[e] = Math.round((5 + r.float() * 195) * 100) / 100;
    }
  }
  return { name, properties: def.properties, offsets, columns };
}

/** One person of a hand-written world: what tests use to know every value in advance. */
export interface PersonRecord {
  first_name: string;
  last_name: string;
  email?: string | null;
  alt_email?: string | null;
  phone?: string | null;
  house_number_and_street: string;
  city: string;
  state: string;
  postcode: string;
  latitude: number;
  longitude: number;
  /** Known only at address level. */
  address_level?: boolean;
  traits?: Record<string, Scalar>;
  /** Events by stream name; `datetime` is a `YYYY-MM-DD` date. */
  events?: Record<string, Record<string, Scalar>[]>;
}

/** A world made of the given people; people with the same address, city and postcode share a residence. */
export function worldFromRecords(people: readonly PersonRecord[], options: { today?: string; seed?: number } = {}): World {
  const size = people.length;
  const cities: City[] = [];
  const residenceKeys = new Map<string, number>();
  const lines: string[] = [];
  const residenceOf = new Int32Array(size);
  const res = { city: [] as number[], postcode: [] as number[], latitude: [] as number[], longitude: [] as number[] };
  people.forEach((person, p) => {
    const key = `${person.house_number_and_street}|${person.city}|${person.state}|${person.postcode}`.toLowerCase();
    let h = residenceKeys.get(key);
    if (h === undefined) {
      h = lines.push(person.house_number_and_street) - 1;
      residenceKeys.set(key, h);
      let city = cities.findIndex((c) => c.name === person.city && c.state === person.state);
      if (city < 0) {
        const known = CITIES.find((c) => c.name === person.city && c.state === person.state);
        city = cities.push(known ?? {
          name: person.city, state: person.state, county: `${person.city} County`, dma: person.city, metro: person.city,
          latitude: person.latitude, longitude: person.longitude, postcode: Number(person.postcode),
        }) - 1;
      }
      res.city.push(city);
      res.postcode.push(Number(person.postcode));
      res.latitude.push(person.latitude);
      res.longitude.push(person.longitude);
    }
    residenceOf[p] = h;
  });
  const residences: Residences = {
    count: lines.length, city: Int32Array.from(res.city), postcode: Int32Array.from(res.postcode),
    latitude: Float64Array.from(res.latitude), longitude: Float64Array.from(res.longitude),
    houseNumber: new Int32Array(lines.length), street: new Int32Array(lines.length),
  };
  const at = (p: number) => people[p] as PersonRecord;
  const identity: Identity = {
    firstName: (p) => at(p).first_name,
    lastName: (p) => at(p).last_name,
    email: (p) => at(p).email ?? null,
    altEmail: (p) => at(p).alt_email ?? null,
    phone: (p) => at(p).phone ?? null,
    houseNumberAndStreet: (h) => lines[h] as string,
  };
  const traits = new Map<string, Column>();
  people.forEach((person, p) => {
    for (const [name, value] of Object.entries(person.traits ?? {})) {
      if (value === null) continue;
      let col = traits.get(name);
      if (!col) traits.set(name, (col = column(typeOf(value, name), size)));
      setValue(col, p, value, toDay);
    }
  });
  return new World({
    size, seed: options.seed ?? 1, today: epochDay(options.today ?? DEFAULT_TODAY), residenceOf, residences, cities,
    addressLevel: Uint8Array.from(people, (person) => (person.address_level ? 1 : 0)), identity, traits,
    makeStream: (_world, name) => streamFromRecords(people, name),
  });
}

function streamFromRecords(people: readonly PersonRecord[], name: string): Stream {
  const offsets = new Int32Array(people.length + 1);
  const events: Record<string, Scalar>[] = [];
  people.forEach((person, p) => {
    const own = person.events?.[name] ?? [];
    events.push(...own);
    offsets[p + 1] = (offsets[p] as number) + own.length;
  });
  const properties: StreamProperty[] = [];
  const columns = new Map<string, Column>();
  events.forEach((event, e) => {
    for (const [key, value] of Object.entries(event)) {
      if (value === null) continue;
      let col = columns.get(key);
      if (!col) {
        const type = typeOf(value, key);
        properties.push({ name: key, type });
        columns.set(key, (col = column(type, events.length)));
      }
      setValue(col, e, value, toDay);
    }
  });
  if (!columns.has("datetime")) {
    properties.unshift({ name: "datetime", type: "date" });
    columns.set("datetime", column("date", events.length));
  }
  return { name, properties, offsets, columns };
}
