import { describe, expect, it } from "vitest";
import { type Collection, families, type FieldError, validate } from "pulumi-audience/sdk/contract";

const A = "6f1c2a9e-0a8b-4c3d-9e2f-1a2b3c4d5e6f";
const B = "0d3e8a6c-51b7-4f0a-8c2d-7e9f1a2b3c4d";

const target = (over: Record<string, unknown>) => ({
  name: "t", scope_id: A, representation: { mode: "identified" }, options: { type: "hosted_csv" }, ...over,
});
const cohort = (over: Record<string, unknown>) => ({ name: "c", ...over });
const atlas = (output_to_locations: Record<string, unknown>) => ({
  name: "a", options: { type: "hosted_csv", upload_directory: "d" }, output_to_locations,
});
const dataset = (over: Record<string, unknown>) => ({
  name: "d", identity_sets: { main: { email: "Email" } }, options: { type: "hosted_csv", upload_directory: "d" }, ...over,
});

function errorsOf(collection: Collection, body: unknown): FieldError[] {
  const family = families[collection];
  const result = validate(family.create, body, family.readOnly);
  return result.ok ? [] : result.errors;
}

/** [rule, family, body, path of the error, words its message must contain] */
const cases: [string, Collection, unknown, string, string][] = [
  // names
  ["blank name", "cohorts", cohort({ name: "  " }), "name", "non-empty"],
  ["missing name", "outcomes", { attainment_cohort_id: A }, "name", "is required"],
  ["blank target name", "targets", target({ name: "" }), "name", "non-empty"],
  ["name over the length limit", "targets", target({ name: "n".repeat(257) }), "name", "at most 256 characters"],
  ["name with a lone surrogate", "cohorts", cohort({ name: "a\ud800" }), "name", "lone surrogate"],
  ["name with NUL", "cohorts", cohort({ name: "a\u0000" }), "name", "control characters"],
  ["column over the length limit", "datasets", dataset({ identity_sets: { main: { email: "e".repeat(257) } } }), "identity_sets.main.email", "at most 256"],
  ["trait name over the length limit", "cohorts", cohort({ traits: [{ name: "t".repeat(257), _eq: "x" }] }), "traits[0].name", "at most 256"],
  // stream conditions
  ["stream date not YYYY-MM-DD", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date", _on_or_before: "01/02/2024" }] }),
    "stream_conditions[0]._on_or_before", "YYYY-MM-DD"],
  ["stream date with month 13", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date", _on_or_after: "2024-13-45" }] }),
    "stream_conditions[0]._on_or_after", "real calendar date"],
  ["stream date of zeros", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date", _on_or_before: "0000-00-00" }] }),
    "stream_conditions[0]._on_or_before", "real calendar date"],
  ["29 February of a common year", "outcomes", { name: "o", attainment_cohort_id: A, predictors: { max_observation_date: "2023-02-29" } },
    "predictors.max_observation_date", "real calendar date"],
  ["31 April", "scopes", { name: "s", population: { cohort_ids: [A] }, payload: { cohort_ids: [B], max_attribute_observation_date: "2024-04-31" } },
    "payload.max_attribute_observation_date", "real calendar date"],
  ["approval time that is no time", "migrations", { type: "identity_graph_v1_to_v2", v1_account_id: A, v2_account_id: B, approved_at: "2024-02-30T10:00:00Z" },
    "approved_at", "ISO 8601 time"],
  ["after later than before", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date", _on_or_after: "2024-03-02", _on_or_before: "2024-03-01" }] }),
    "stream_conditions[0]._on_or_after", "later than _on_or_before"],
  ["stream condition without operator", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date" }] }),
    "stream_conditions[0]", "must give an operator"],
  ["unknown stream operator", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "p", _like: "x" }] }),
    "stream_conditions[0]._like", "allowed operators"],
  ["stream conditions without stream", "cohorts", cohort({ stream_conditions: [{ property: "p", _eq: 1 }] }), "stream_name", "is required"],
  ["stream _matches that cannot compile", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "p", _matches: "(" }] }),
    "stream_conditions[0]._matches", "must be a valid regular expression"],
  ["trait _matches that cannot compile", "cohorts", cohort({ traits: [{ name: "tier", _matches: "[a-" }] }),
    "traits[0]._matches", "must be a valid regular expression"],
  ["location _matches that cannot compile", "cohorts", cohort({ location_conditions: [{ atlas_id: A, conditions: [{ property: "kind", _matches: "*big" }] }] }),
    "location_conditions[0].conditions[0]._matches", "must be a valid regular expression"],
  // cohort
  ["location and place conditions together", "cohorts", cohort({ location_conditions: [{ atlas_id: A }], place_conditions: [{ place_id: B }] }),
    "place_conditions", "location_conditions"],
  ["_matches with numeric comparator", "cohorts", cohort({ location_conditions: [{ atlas_id: A, conditions: [{ property: "size", _matches: "big", _gt: 3 }] }] }),
    "location_conditions[0].conditions[0]._gt", "_matches"],
  ["location condition without operator", "cohorts", cohort({ location_conditions: [{ atlas_id: A, conditions: [{ property: "size", _gt: null }] }] }),
    "location_conditions[0].conditions[0]", "must give an operator"],
  ["unknown location operator", "cohorts", cohort({ location_conditions: [{ atlas_id: A, conditions: [{ property: "size", _near: 1 }] }] }),
    "location_conditions[0].conditions[0]._near", "allowed operators"],
  ["scope location _matches with numeric", "scopes", { name: "s", population: { cohort_ids: [A] }, preview: false,
    payload: { location: { atlas_ids: [B], conditions: [{ property: "reference_key", _matches: "^A", _lte: 3 }] } } },
  "payload.location.conditions[0]._lte", "_matches"],
  ["scope location distance bounds", "scopes", { name: "s", population: { cohort_ids: [A] }, preview: false,
    payload: { location: { atlas_ids: [B], min_distance: 500, max_distance: 100 } } }, "payload.location.min_distance", "max_distance"],
  ["recency occurrence", "cohorts", cohort({ recency: { occurrence: "middle" } }), "recency.occurrence", "first, last"],
  ["min_count above max_count", "cohorts", cohort({ min_count: 5, max_count: 2 }), "min_count", "max_count"],
  // atlas output_to_locations
  ["two placement groups", "atlases", atlas({ geometry: "geom", latitude: "lat", longitude: "lon" }), "output_to_locations.latitude", "exactly one group"],
  ["address with geometry", "atlases", atlas({ geometry: "geom", city: "city" }), "output_to_locations.city", "geometry"],
  ["latitude without longitude", "atlases", atlas({ latitude: "lat" }), "output_to_locations.longitude", "together"],
  ["blank column", "atlases", atlas({ name: " " }), "output_to_locations.name", "non-blank"],
  ["blank address column", "atlases", atlas({ house_number_and_street: [""] }), "output_to_locations.house_number_and_street[0]", "non-blank"],
  ["property named name", "atlases", atlas({ properties: { name: { column_name: "n" } } }), "output_to_locations.properties.name", "reserved"],
  ["property named reference_key", "atlases", atlas({ properties: { reference_key: { column_name: "k" } } }), "output_to_locations.properties.reference_key", "reserved"],
  ["atlas warehouse without connection", "atlases", { ...atlas({}), options: { type: "snowflake", table_name: "t" } }, "connection_id", "is required"],
  // target representation
  ["unknown mode", "targets", target({ representation: { mode: "raw" } }), "representation.mode", "must be one of identified, hashed, referenced, aggregated"],
  ["impute_payload on aggregated", "targets", target({ representation: { mode: "aggregated", aggregate: "postcode", impute_payload: ["attributes"] } }),
    "representation.impute_payload", "not supported by mode aggregated"],
  ["output_multiple_identities on hashed", "targets", target({ representation: { mode: "hashed", output_multiple_identities: true } }),
    "representation.output_multiple_identities", "only identified, referenced"],
  ["include_geometry on identified", "targets", target({ representation: { mode: "identified", include_geometry: true } }),
    "representation.include_geometry", "only aggregated"],
  ["aggregated geography", "targets", target({ representation: { mode: "aggregated", aggregate: "planet" } }),
    "representation.aggregate", "census_tract"],
  ["referenced without reference", "targets", target({ representation: { mode: "referenced" } }), "representation.reference", "dataset_id, column_name"],
  ["reference without column", "targets", target({ representation: { mode: "referenced", reference: { dataset_id: A } } }),
    "representation.reference.column_name", "is required"],
  ["impute_payload element", "targets", target({ representation: { mode: "identified", impute_payload: ["everything"] } }),
    "representation.impute_payload[0]", "attributes"],
  // target options
  ["unknown options type", "targets", target({ options: { type: "ftp" } }), "options.type", "hosted_csv"],
  ["lookup_api takes no options", "targets", target({ options: { type: "lookup_api", delimiter: "," } }), "options.delimiter", "not a recognized"],
  ["connection-based without connection", "targets", target({ options: { type: "snowflake", table_name: "t" } }), "connection_id", "snowflake"],
  ["warehouse needs table", "targets", target({ connection_id: B, options: { type: "bigquery" } }), "options.table_name", "is required"],
  ["full replace needs order_by", "targets", target({ connection_id: B, options: { type: "postgres", table_name: "t", full_replace: true } }),
    "options.order_by", "full_replace"],
  ["upsert needs referenced mode", "targets", target({ connection_id: B, options: { type: "snowflake", table_name: "t", upsert: true } }),
    "options.upsert", "only supported by mode referenced"],
  // count / limit
  ["percentile min above max", "targets", target({ limit: { method: "percentile", outcome_id: A, percentile_min: 90, percentile_max: 10 } }),
    "limit.percentile_min", "percentile_max"],
  ["percentile above 100", "targets", target({ count: { method: "percentile", outcome_id: A, percentile_min: 0, percentile_max: 101 } }),
    "count.percentile_max", "0 to 100"],
  ["percentile needs outcome", "targets", target({ limit: { method: "percentile", percentile_min: 0, percentile_max: 10 } }),
    "limit.outcome_id", "is required"],
  ["row_count threshold", "targets", target({ limit: { method: "row_count", threshold: 0 } }), "limit.threshold", "positive"],
  ["unknown limit method", "targets", target({ limit: { method: "random" } }), "limit.method", "percentile, row_count"],
  ["count and limit together", "targets", target({ limit: { method: "row_count", threshold: 5 }, count: { method: "row_count", threshold: 5 } }),
    "count", "together with limit"],
  // filter
  ["cohort_membership takes only _eq", "targets", target({ filter: { cohort_membership: [{ cohort_id: A, _gt: 1 }] } }),
    "filter.cohort_membership[0]._gt", "allowed operators: _eq"],
  ["cohort_membership _eq is boolean", "targets", target({ filter: { cohort_membership: [{ cohort_id: A, _eq: "yes" }] } }),
    "filter.cohort_membership[0]._eq", "boolean"],
  ["outcome_percentile takes no _matches", "targets", target({ filter: { outcome_percentile: [{ outcome_id: A, _matches: "x" }] } }),
    "filter.outcome_percentile[0]._matches", "_gte"],
  ["outcome_probability range", "targets", target({ filter: { outcome_probability: [{ outcome_id: A, _gte: 2 }] } }),
    "filter.outcome_probability[0]._gte", "0 to 1"],
  ["percentile filter bounds crossed", "targets", target({ filter: { outcome_percentile: [{ outcome_id: A, _gte: 80, _lte: 20 }] } }),
    "filter.outcome_percentile[0]._gte", "upper bound"],
  ["filter condition without operator", "targets", target({ filter: { persona: [{ persona_set_id: A }] } }),
    "filter.persona[0]", "must give an operator"],
  ["unknown filter family", "targets", target({ filter: { zodiac: [] } }), "filter.zodiac", "not a recognized"],
  ["lookup_api takes no filter", "targets", target({ options: { type: "lookup_api" }, filter: { cohort_membership: [{ cohort_id: A, _eq: true }] } }),
    "filter", "lookup_api"],
  ["attribute filter name", "targets", target({ filter: { attribute: [{ name: "age", _gt: 30 }] } }), "filter.attribute[0].name", "^ig/"],
  ["analysis attribute pattern", "targets", target({ analysis_config: { attributes: ["ig/age", "ig/Income"] } }),
    "analysis_config.attributes[1]", "^ig/[a-z][a-z0-9_]+$"],
  // dataset
  ["identity set key start", "datasets", dataset({ identity_sets: { "1st": { email: "e" } } }), "identity_sets.1st", "letter or underscore"],
  ["identity set insufficient", "datasets", dataset({ identity_sets: { people: { person_first_name: "first", city: "city" } } }),
    "identity_sets.people", "email, email_hash"],
  ["phone needs last name", "datasets", dataset({ identity_sets: { people: { phone: "phone" } } }), "identity_sets.people", "phone (or phone_hash_base64) with person_last_name"],
  ["address needs state", "datasets", dataset({ identity_sets: { people: { house_number_and_street: ["street"], city: "city" } } }),
    "identity_sets.people", "with city and state"],
  ["no identity set", "datasets", dataset({ identity_sets: {} }), "identity_sets", "at least one identity set"],
  ["identity column blank", "datasets", dataset({ identity_sets: { people: { email: "" } } }), "identity_sets.people.email", "non-blank"],
  ["trait mapping needs a source", "datasets", dataset({ output_to_traits: { tier: { format: "x" } } }), "output_to_traits.tier.column_name", "column_name or value"],
  ["dataset warehouse without connection", "datasets", dataset({ options: { type: "bigquery", table_name: "t" } }), "connection_id", "is required"],
  // others
  ["outcome prediction_mode", "outcomes", { name: "o", attainment_cohort_id: A, prediction_mode: "sometimes" }, "prediction_mode", "auto, static"],
  ["outcome needs attainment cohort", "outcomes", { name: "o" }, "attainment_cohort_id", "is required"],
  ["persona set needs cohort", "persona_sets", { name: "p" }, "cohort_id", "is required"],
  ["persona set cluster count", "persona_sets", { name: "p", cohort_id: A, number_of_clusters: 1 }, "number_of_clusters", "2 or more"],
  ["webhook event", "webhook_endpoints", { url: "https://x.example", enabled_events: ["resource.deleted"] }, "enabled_events[0]",
    "resource.errored, resource.ready_with_update"],
  ["webhook url", "webhook_endpoints", { url: "not a url", enabled_events: ["resource.errored"] }, "url", "URL"],
  ["webhook status", "webhook_endpoints", { url: "https://x.example", enabled_events: ["resource.errored"], status: "paused" }, "status", "enabled, disabled"],
  ["webhook secret is read-only", "webhook_endpoints", { url: "https://x.example", enabled_events: ["resource.errored"], secret: "whsec_x" }, "secret", "read-only"],
  ["account api_key is read-only", "accounts", { name: "a", api_key: "k" }, "api_key", "read-only"],
  ["connection type", "connections", { name: "c", options: { type: "mysql" } }, "options.type", "snowflake"],
  ["postgres needs password", "connections", { name: "c", options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u" } },
    "options.password", "is required"],
  ["databricks needs credentials", "connections", { name: "c", options: { type: "databricks", host: "h", http_path: "p", catalog: "c", schema: "s" } },
    "options.token", "client_id and client_secret"],
  ["migration type", "migrations", { type: "v2_to_v3", v1_account_id: A, v2_account_id: B }, "type", "identity_graph_v1_to_v2"],
  ["attribute source dates", "attributes", { name: "a", sources: [{ authority: "x", source_column: "c", effective_from: "2024-02-01", effective_until: "2024-01-01" }] },
    "sources[0].effective_until", "effective_from"],
  ["stream statistical type", "streams", { name: "s", properties: { p: { statistical_type: "weird" } } }, "properties.p.statistical_type", "continuous_ordinal"],
  ["analysis aggregate", "market_opportunity_analyses", { name: "m", aggregate: "household" }, "aggregate", "person, residence"],
  ["scope preview required", "scopes", { name: "s", population: { cohort_ids: [A] }, payload: { outcome_ids: [B] } }, "preview", "required"],
];

describe("rules of one body", () => {
  it.each(cases)("%s", (_rule, collection, body, path, words) => {
    const errors = errorsOf(collection, body);
    const match = errors.find((e) => e.path === path);
    expect(match, `errors were ${JSON.stringify(errors)}`).toBeDefined();
    expect(match?.message).toContain(words);
  });
});

it("a webhook url with a space is one mistake, said once", () => {
  const errors = errorsOf("webhook_endpoints", { url: "not a url", enabled_events: ["resource.errored"] }).filter((e) => e.path === "url");
  expect(errors.map((e) => e.message)).toEqual(["must be an http(s) URL without spaces, line breaks or other control characters"]);
});

describe("bodies the rules allow", () => {
  const allowed: [string, Collection, unknown][] = [
    ["same day range", "cohorts", cohort({ stream_name: "orders", stream_conditions: [{ property: "date", _on_or_after: "2024-03-01", _on_or_before: "2024-03-01" }] })],
    ["_matches and numeric in separate conditions", "cohorts", cohort({ location_conditions: [{ atlas_id: A, conditions: [{ property: "size", _matches: "big" }, { property: "size", _gt: 3 }] }] })],
    ["no placement group", "atlases", atlas({ name: "n", reference_key: "k" })],
    ["address placement", "atlases", atlas({ house_number_and_street: ["street"], city: "c", state: "s", postcode: "p" })],
    ["cleared group (null) with another", "atlases", atlas({ geometry: "g", properties: { size: { column_name: "size" } } })],
    ["deprecated reference_dataset_id", "targets", target({ representation: { mode: "referenced", reference_dataset_id: A } })],
    ["aggregated target", "targets", target({ representation: { mode: "aggregated", aggregate: "census_tract", include_geometry: true } })],
    ["row_count without outcome", "targets", target({ count: { method: "row_count", threshold: 1000 } })],
    ["connection target", "targets", target({ connection_id: B, options: { type: "snowflake", table_name: "t" } })],
    ["upsert on a referenced target", "targets", target({
      connection_id: B, options: { type: "bigquery", table_name: "t", upsert: true },
      representation: { mode: "referenced", reference: { dataset_id: A, column_name: "customer_id" } },
    })],
    ["cohort_membership false", "targets", target({ filter: { cohort_membership: [{ cohort_id: A, _eq: false }] } })],
    ["phone with last name", "datasets", dataset({ identity_sets: { people: { phone: "p", person_last_name: "l" } } })],
    ["address with city and state", "datasets", dataset({ identity_sets: { _home: { house_number_and_street: ["s1", "s2"], city: "c", state: "s" } } })],
    ["identity set name with spaces and capitals", "datasets", dataset({ identity_sets: { "Home Address": { freeform_address: "addr" } } })],
    ["deprecated address_line_1", "datasets", dataset({ identity_sets: { home: { address_line_1: "a", city: "c", state: "s" } } })],
    ["deprecated place_conditions alone", "cohorts", cohort({ place_conditions: [{ place_id: A }] })],
    ["databricks with oauth client", "connections", { name: "c", options: { type: "databricks", host: "h", http_path: "p", catalog: "c", schema: "s", client_id: "i", client_secret: "x" } }],
  ];
  it.each(allowed)("%s", (_rule, collection, body) => {
    expect(errorsOf(collection, body)).toEqual([]);
  });
});
