// Bad inputs sent to the emulator over HTTP, one row per case: what is sent and the 4xx the service must answer.
// Rows per family are built from its wire sample (test/samples.ts); the spec's 400 rules and the transport's
// limits have their own rows.
import { collectionPath, families, itemPath, MAX_NAME_LENGTH, type Collection, type ErrorCode } from "pulumi-audience/sdk/contract";
import { samples, type Json } from "../samples.ts";

/** What the rows name: one stored resource per sampled family, made from its sample body. */
export interface Base {
  id(collection: Collection): string;
  /** The sample's create body, with the ids it names. */
  body(collection: Collection): Json;
  leads: string;
  forecast: string;
  /** The name of the sampled stream (its `amount` property is a double). */
  stream: string;
}

export interface HttpCase {
  name: string;
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Path under /v1. */
  path(base: Base): string;
  /** A JSON body... */
  body?(base: Base): unknown;
  /** ...or text sent as it is. */
  raw?(base: Base): string;
  /** Default: JSON (merge patch for PATCH). */
  contentType?: string;
  status: 400 | 403 | 404;
  error: ErrorCode;
  /** A member `validationErrors` must name. */
  at?: string;
}

/** Families with a sample whose generic routes create and change them (accounts have their own, tested apart). */
export const sampled = (Object.keys(samples) as Collection[]).filter((c) => families[c].creatable && c !== "accounts");

const collection = (c: Collection) => `${collectionPath(families[c])}`;
const item = (c: Collection) => (base: Base) => itemPath(families[c], base.id(c));
/** The member naming the resource: `name`, or `url` for webhook endpoints. */
const label = (c: Collection) => (c === "webhook_endpoints" ? "url" : "name");
const MIB = 1024 * 1024;
const BAD_DATES = ["2024-13-45", "0000-00-00", "2023-02-29", "2024-04-31", "24-01-01", "2024-1-1", "yesterday"];
const UUID_LIKE = ["not-a-uuid", "00000000-0000-0000-0000", "zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz", "12345"];
const MISSING = "00000000-0000-4000-8000-00000000abcd";

function familyRows(c: Collection): HttpCase[] {
  const base = (b: Base) => b.body(c);
  const member = label(c);
  const readOnly = families[c].readOnly.filter((m) => !m.includes(".") && m !== "id");
  const readOnlyMember = readOnly.includes("status") ? "status" : readOnly[0] ?? "created_at";
  const post = { method: "POST" as const, path: () => collection(c) };
  const patch = { method: "PATCH" as const, path: item(c) };
  return [
    { name: `${c}: POST a JSON array`, ...post, body: () => [base], status: 400, error: "VALIDATION_FAILED", at: "" },
    { name: `${c}: POST a JSON string`, ...post, body: () => "name", status: 400, error: "VALIDATION_FAILED", at: "" },
    { name: `${c}: POST JSON null`, ...post, raw: () => "null", status: 400, error: "VALIDATION_FAILED", at: "" },
    { name: `${c}: POST an empty body`, ...post, raw: () => "", status: 400, error: "VALIDATION_FAILED" },
    { name: `${c}: POST an unknown member`, ...post, body: (b) => ({ ...base(b), colour: "red" }), status: 400, error: "VALIDATION_FAILED", at: "colour" },
    { name: `${c}: POST ${member} as a number`, ...post, body: (b) => ({ ...base(b), [member]: 42 }), status: 400, error: "VALIDATION_FAILED", at: member },
    { name: `${c}: POST ${member} as an object`, ...post, body: (b) => ({ ...base(b), [member]: { text: "x" } }), status: 400, error: "VALIDATION_FAILED", at: member },
    { name: `${c}: POST without ${member}`, ...post, body: (b) => ({ ...base(b), [member]: undefined }), status: 400, error: "VALIDATION_FAILED", at: member },
    { name: `${c}: POST the read-only id`, ...post, body: (b) => ({ ...base(b), id: MISSING }), status: 400, error: "VALIDATION_FAILED", at: "id" },
    { name: `${c}: POST the read-only ${readOnlyMember}`, ...post, body: (b) => ({ ...base(b), [readOnlyMember]: "ready" }), status: 400, error: "VALIDATION_FAILED", at: readOnlyMember },
    { name: `${c}: POST truncated JSON`, ...post, raw: (b) => JSON.stringify(base(b)).slice(0, -3), status: 400, error: "BAD_REQUEST" },
    { name: `${c}: POST JSON with a trailing comma`, ...post, raw: (b) => `${JSON.stringify(base(b)).slice(0, -1)},}`, status: 400, error: "BAD_REQUEST" },
    { name: `${c}: POST as text/plain`, ...post, raw: (b) => JSON.stringify(base(b)), contentType: "text/plain", status: 400, error: "BAD_REQUEST" },
    { name: `${c}: POST as a form`, ...post, raw: () => "name=x", contentType: "application/x-www-form-urlencoded", status: 400, error: "BAD_REQUEST" },
    { name: `${c}: POST a body over 1 MiB (a long ${member})`, ...post, body: (b) => ({ ...base(b), [member]: "n".repeat(MIB + 10) }), status: 400, error: "BAD_REQUEST" },
    { name: `${c}: PATCH an unknown member`, ...patch, body: () => ({ colour: "red" }), status: 400, error: "VALIDATION_FAILED", at: "colour" },
    { name: `${c}: PATCH the read-only id`, ...patch, body: () => ({ id: MISSING }), status: 400, error: "VALIDATION_FAILED", at: "id" },
    { name: `${c}: PATCH the read-only ${readOnlyMember}`, ...patch, body: () => ({ [readOnlyMember]: "ready" }), status: 400, error: "VALIDATION_FAILED", at: readOnlyMember },
    { name: `${c}: PATCH the read-only created_at`, ...patch, body: () => ({ created_at: "2020-01-01T00:00:00Z" }), status: 400, error: "VALIDATION_FAILED", at: "created_at" },
    { name: `${c}: PATCH ${member} as a boolean`, ...patch, body: () => ({ [member]: true }), status: 400, error: "VALIDATION_FAILED", at: member },
    { name: `${c}: PATCH ${member} to null`, ...patch, body: () => ({ [member]: null }), status: 400, error: "VALIDATION_FAILED", at: member },
    { name: `${c}: PATCH a JSON array`, ...patch, body: () => [{ [member]: "x" }], status: 400, error: "VALIDATION_FAILED", at: "" },
    { name: `${c}: PATCH truncated JSON`, ...patch, raw: () => `{"${member}": "x`, status: 400, error: "BAD_REQUEST" },
    { name: `${c}: PATCH as text/plain`, ...patch, raw: () => `{"${member}": "x"}`, contentType: "text/plain", status: 400, error: "BAD_REQUEST" },
    { name: `${c}: GET 101 ids`, method: "GET", path: () => `${collection(c)}?${Array.from({ length: 101 }, (_v, i) => `ids=00000000-0000-4000-8000-${String(i).padStart(12, "0")}`).join("&")}`, status: 400, error: "VALIDATION_FAILED", at: "ids" },
    { name: `${c}: GET ids that are not uuids`, method: "GET", path: () => `${collection(c)}?ids=${UUID_LIKE[0]}`, status: 400, error: "VALIDATION_FAILED", at: "ids[0]" },
    { name: `${c}: PATCH an id that does not exist`, method: "PATCH", path: () => itemPath(families[c], MISSING), body: () => ({ [member]: "x" }), status: 404, error: "NOT_FOUND" },
  ];
}

/** The spec's 400 rules (Errors table, stream condition rules, atlas rules), dates and ids. */
const specRows: HttpCase[] = [
  { name: "blank cohort name", method: "POST", path: () => "/cohorts", body: () => ({ name: "   " }), status: 400, error: "VALIDATION_FAILED", at: "name" },
  { name: "empty scope name", method: "POST", path: () => "/scopes", body: (b) => ({ ...b.body("scopes"), name: "" }), status: 400, error: "VALIDATION_FAILED", at: "name" },
  { name: "blank target name on PATCH", method: "PATCH", path: item("targets"), body: () => ({ name: "\t \n" }), status: 400, error: "VALIDATION_FAILED", at: "name" },
  {
    name: "stream condition: unreadable operator", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "amount", _between: [1, 2] }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._between",
  },
  {
    name: "stream condition: no operator", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "amount" }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]",
  },
  {
    name: "stream condition: _on_or_before on a double property (rule 2)", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "amount", _on_or_before: "2024-01-31" }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._on_or_before",
  },
  {
    name: "stream condition: _on_or_after later than _on_or_before (rule 3)", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "datetime", _on_or_after: "2024-02-01", _on_or_before: "2024-01-01" }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._on_or_after",
  },
  {
    name: "stream condition: _gt on the datetime property (rule 4)", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "datetime", _gt: 3 }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._gt",
  },
  {
    name: "stream condition: _lte on the datetime property, by PATCH (rule 4)", method: "PATCH", path: item("cohorts"),
    body: () => ({ stream_conditions: [{ property: "datetime", _lte: 3 }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._lte",
  },
  ...BAD_DATES.map((date): HttpCase => ({
    name: `stream condition date ${date}`, method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "datetime", _on_or_after: date }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._on_or_after",
  })),
  ...BAD_DATES.map((date): HttpCase => ({
    name: `outcome predictors.max_observation_date ${date}`, method: "PATCH", path: item("outcomes"),
    body: () => ({ predictors: { max_observation_date: date } }), status: 400, error: "VALIDATION_FAILED", at: "predictors.max_observation_date",
  })),
  ...["2024-13-45", "0000-00-00"].flatMap((date): HttpCase[] => [
    {
      name: `scope payload.max_attribute_observation_date ${date}`, method: "PATCH", path: item("scopes"),
      body: () => ({ payload: { max_attribute_observation_date: date } }), status: 400, error: "VALIDATION_FAILED", at: "payload.max_attribute_observation_date",
    },
    {
      name: `persona set attribute_max_observation_date ${date}`, method: "POST", path: () => "/persona_sets",
      body: (b) => ({ ...b.body("persona_sets"), attribute_max_observation_date: date }), status: 400, error: "VALIDATION_FAILED", at: "attribute_max_observation_date",
    },
  ]),
  {
    name: "atlas: a location property named name", method: "POST", path: () => "/atlases",
    body: (b) => ({ ...b.body("atlases"), output_to_locations: { name: "store_name", properties: { name: { column_name: "n" } } } }), status: 400, error: "VALIDATION_FAILED", at: "output_to_locations.properties.name",
  },
  {
    name: "atlas: a location property named reference_key", method: "PATCH", path: item("atlases"),
    body: () => ({ output_to_locations: { properties: { reference_key: { column_name: "k" } } } }), status: 400, error: "VALIDATION_FAILED", at: "output_to_locations.properties.reference_key",
  },
  {
    name: "atlas: geometry and coordinates together", method: "POST", path: () => "/atlases",
    body: (b) => ({ ...b.body("atlases"), output_to_locations: { geometry: "g", latitude: "lat", longitude: "lon" } }), status: 400, error: "VALIDATION_FAILED", at: "output_to_locations.latitude",
  },
  {
    name: "atlas: PATCH to an address group without clearing coordinates", method: "PATCH", path: item("atlases"),
    body: () => ({ output_to_locations: { postcode: "zip" } }), status: 400, error: "VALIDATION_FAILED", at: "output_to_locations.postcode",
  },
  {
    name: "atlas: a blank placement column", method: "POST", path: () => "/atlases",
    body: (b) => ({ ...b.body("atlases"), output_to_locations: { geometry: "" } }), status: 400, error: "VALIDATION_FAILED", at: "output_to_locations.geometry",
  },
  {
    name: "dataset: insufficient identity set fields", method: "POST", path: () => "/datasets",
    body: (b) => ({ ...b.body("datasets"), identity_sets: { main: { person_first_name: "first" } } }), status: 400, error: "VALIDATION_FAILED", at: "identity_sets.main",
  },
  {
    name: "dataset: identity set made insufficient by PATCH", method: "PATCH", path: item("datasets"),
    body: () => ({ identity_sets: { main: { email: null, person_first_name: "first" } } }), status: 400, error: "VALIDATION_FAILED", at: "identity_sets.main",
  },
  {
    name: "cohort: location_conditions and place_conditions together", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "Near", location_conditions: [{ atlas_id: b.id("atlases"), distance: 100 }], place_conditions: [{ place_id: "x" }] }), status: 400, error: "VALIDATION_FAILED", at: "place_conditions",
  },
  {
    name: "scope: _matches with _gt in one location property condition", method: "PATCH", path: item("scopes"),
    body: () => ({ payload: { location: { conditions: [{ property: "size", _matches: "^big", _gt: 3 }] } } }), status: 400, error: "VALIDATION_FAILED", at: "payload.location.conditions[0]._gt",
  },
  {
    name: "scope: _matches with _lte in one location property condition, on create", method: "POST", path: () => "/scopes",
    body: (b) => ({ ...b.body("scopes"), payload: { forecast_ids: [b.forecast], location: { conditions: [{ property: "size", _matches: "^big", _lte: 3 }] } } }), status: 400, error: "VALIDATION_FAILED", at: "payload.location.conditions[0]._lte",
  },
  {
    name: "cohort: a _matches pattern that cannot compile", method: "POST", path: () => "/cohorts",
    body: (b) => ({ name: "x", stream_name: b.stream, stream_conditions: [{ property: "kind", _matches: "([a-z" }] }), status: 400, error: "VALIDATION_FAILED", at: "stream_conditions[0]._matches",
  },
  ...UUID_LIKE.map((bad): HttpCase => ({
    name: `scope population.cohort_ids[0] ${bad}`, method: "PATCH", path: item("scopes"),
    body: () => ({ population: { cohort_ids: [bad] } }), status: 400, error: "VALIDATION_FAILED", at: "population.cohort_ids[0]",
  })),
  {
    name: "scope: population.cohort_ids naming a cohort that does not exist", method: "PATCH", path: item("scopes"),
    body: () => ({ population: { cohort_ids: [MISSING] } }), status: 400, error: "VALIDATION_FAILED", at: "population.cohort_ids[0]",
  },
  {
    name: "target: scope_id not a uuid", method: "POST", path: () => "/targets",
    body: (b) => ({ ...b.body("targets"), scope_id: "scope-1" }), status: 400, error: "VALIDATION_FAILED", at: "scope_id",
  },
  {
    name: "target: representation.mode not allowed", method: "PATCH", path: item("targets"),
    body: () => ({ representation: { mode: "everything" } }), status: 400, error: "VALIDATION_FAILED", at: "representation.mode",
  },
  {
    name: "target: changing the create-only options.type by PATCH", method: "PATCH", path: item("targets"),
    body: () => ({ options: { type: "lookup_api", delimiter: null } }), status: 400, error: "VALIDATION_FAILED", at: "options.type",
  },
  {
    name: "connection: a port out of range", method: "PATCH", path: item("connections"),
    body: () => ({ options: { port: 70000 } }), status: 400, error: "VALIDATION_FAILED", at: "options.port",
  },
  {
    name: "connection: an unknown type", method: "POST", path: () => "/connections",
    body: () => ({ name: "c", options: { type: "ftp", host: "h" } }), status: 400, error: "VALIDATION_FAILED", at: "options.type",
  },
  {
    name: "connection: rotate_credentials with another type", method: "POST", path: (b) => `/connections/${b.id("connections")}/rotate_credentials`,
    body: () => ({ type: "snowflake" }), status: 400, error: "VALIDATION_FAILED", at: "type",
  },
  {
    name: "connection: rotate_credentials with an unknown member", method: "POST", path: (b) => `/connections/${b.id("connections")}/rotate_credentials`,
    body: () => ({ type: "postgres", password: "p" }), status: 400, error: "VALIDATION_FAILED", at: "password",
  },
  {
    name: "persona set: number_of_clusters as text", method: "PATCH", path: item("persona_sets"),
    body: () => ({ number_of_clusters: "five" }), status: 400, error: "VALIDATION_FAILED", at: "number_of_clusters",
  },
  {
    name: "outcome: prediction_mode not allowed", method: "PATCH", path: item("outcomes"),
    body: () => ({ prediction_mode: "sometimes" }), status: 400, error: "VALIDATION_FAILED", at: "prediction_mode",
  },
  {
    name: "webhook endpoint: an event that does not exist", method: "PATCH", path: item("webhook_endpoints"),
    body: () => ({ enabled_events: ["resource.exploded"] }), status: 400, error: "VALIDATION_FAILED", at: "enabled_events[0]",
  },
  {
    name: "webhook endpoint: writing the read-only secret", method: "PATCH", path: item("webhook_endpoints"),
    body: () => ({ secret: "whsec_mine" }), status: 400, error: "VALIDATION_FAILED", at: "secret",
  },
  {
    name: "a body nested deeper than 64 levels", method: "POST", path: () => "/cohorts",
    raw: () => `{"name":"x","attributes":${"[".repeat(80)}${"]".repeat(80)}}`, status: 400, error: "BAD_REQUEST",
  },
  { name: "a non-ASCII unknown member", method: "POST", path: () => "/cohorts", body: () => ({ name: "x", "cölöur": 1 }), status: 400, error: "VALIDATION_FAILED", at: "cölöur" },
  { name: "a non-ASCII enum value", method: "PATCH", path: item("targets"), body: () => ({ representation: { mode: "idéntified" } }), status: 400, error: "VALIDATION_FAILED", at: "representation.mode" },
  { name: "full-width digits as a port", method: "PATCH", path: item("connections"), body: () => ({ options: { port: "５４３２" } }), status: 400, error: "VALIDATION_FAILED", at: "options.port" },
  { name: "a non-ASCII name over 1 MiB", method: "POST", path: () => "/cohorts", body: () => ({ name: "名".repeat(MIB / 2) }), status: 400, error: "BAD_REQUEST" },
  { name: "a __proto__ member", method: "PATCH", path: item("cohorts"), raw: () => '{"__proto__": {"name": "x"}}', status: 400, error: "BAD_REQUEST" },
  { name: "a path segment over 100 characters", method: "GET", path: () => `/scopes/${"x".repeat(300)}`, status: 400, error: "BAD_REQUEST" },
  { name: "a path segment that does not decode", method: "PATCH", path: () => "/scopes/%E0%A4%A", body: () => ({ name: "x" }), status: 400, error: "BAD_REQUEST" },
  { name: "a non-ASCII id in the path", method: "PATCH", path: () => `/cohorts/${encodeURIComponent("коhорт-✓")}`, body: () => ({ name: "x" }), status: 404, error: "NOT_FOUND" },
  { name: "a non-uuid id in the path", method: "DELETE", path: () => "/scopes/not-a-uuid", status: 404, error: "NOT_FOUND" },
  { name: "an unknown collection", method: "POST", path: () => "/cohortz", body: () => ({ name: "x" }), status: 404, error: "NOT_FOUND" },
  { name: "PATCH of a managed (seeded) cohort", method: "PATCH", path: (b) => `/cohorts/${b.leads}`, body: () => ({ name: "Mine now" }), status: 403, error: "FORBIDDEN" },
];

export const httpCases: HttpCase[] = [...sampled.flatMap(familyRows), ...specRows];

/**
 * Names that are valid however unusual: stored and answered back unchanged. Control characters and names past
 * MAX_NAME_LENGTH are refused (test/emulator/bad-input.test.ts).
 */
export const acceptedNames: string[] = [
  "Clients fidèles", "顧客セグメント", "Постоянные клиенты", "عملاء أوفياء", "🎯 Big spenders 🎯", "e\u0301te\u0301",
  "  spaced  out  ", "n".repeat(MAX_NAME_LENGTH), "名".repeat(MAX_NAME_LENGTH),
];
