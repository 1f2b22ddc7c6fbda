import { describe, expect, it } from "vitest";
import { camelKey, families, fromWire, toWire } from "pulumi-audience/sdk/contract";

/** [what, schema, camelCase value, wire value]: each pair must map both ways. */
const pairs: [string, keyof typeof families, "create" | "patch" | "response", unknown, unknown][] = [
  ["scope payload and population", "scopes", "create",
    { population: { cohortIds: ["c"] }, payload: { outcomeIds: ["o"], location: { atlasIds: ["a"], maxDistance: 500 } } },
    { population: { cohort_ids: ["c"] }, payload: { outcome_ids: ["o"], location: { atlas_ids: ["a"], max_distance: 500 } } }],
  ["target unions, limit, filter operators and ig/ attributes", "targets", "create",
    {
      scopeId: "s", representation: { mode: "aggregated", includeGeometry: true, transformPreset: "p" },
      options: { type: "s3_csv", objectKey: "k", quoteAll: true }, connectionId: "c",
      limit: { method: "percentile", outcomeId: "o", percentileMin: 1, percentileMax: 9 },
      filter: { cohortMembership: [{ cohortId: "c", _eq: false }], attribute: [{ name: "ig/household_income_v2", _gte: 3 }] },
      analysisConfig: { attributes: ["ig/age"] }, humanReadable: true,
    },
    {
      scope_id: "s", representation: { mode: "aggregated", include_geometry: true, transform_preset: "p" },
      options: { type: "s3_csv", object_key: "k", quote_all: true }, connection_id: "c",
      limit: { method: "percentile", outcome_id: "o", percentile_min: 1, percentile_max: 9 },
      filter: { cohort_membership: [{ cohort_id: "c", _eq: false }], attribute: [{ name: "ig/household_income_v2", _gte: 3 }] },
      analysis_config: { attributes: ["ig/age"] }, human_readable: true,
    }],
  ["referenced target with its reference", "targets", "create",
    { representation: { mode: "referenced", reference: { datasetId: "d", columnName: "c" }, outputMultipleIdentities: true } },
    { representation: { mode: "referenced", reference: { dataset_id: "d", column_name: "c" }, output_multiple_identities: true } }],
  ["dataset records keyed by set, stream, property and trait names", "datasets", "create",
    {
      identitySets: { my_set: { personFirstName: "fn", houseNumberAndStreet: ["a"], emailHashBase64: "h" } },
      outputToStreams: { my_stream: { dataMap: { order_total: { columnName: "total" } }, conditions: [{ columnName: "x", _in: [1] }] } },
      outputToTraits: { loyalty_tier: { columnName: "tier", nullValues: ["-"] } },
    },
    {
      identity_sets: { my_set: { person_first_name: "fn", house_number_and_street: ["a"], email_hash_base64: "h" } },
      output_to_streams: { my_stream: { data_map: { order_total: { column_name: "total" } }, conditions: [{ column_name: "x", _in: [1] }] } },
      output_to_traits: { loyalty_tier: { column_name: "tier", null_values: ["-"] } },
    }],
  ["cohort conditions and read-only members", "cohorts", "response",
    {
      streamName: "orders", streamConditions: [{ property: "order_date", _on_or_after: "2024-01-01" }],
      locationConditions: [{ atlasId: "a", locationReferenceKeys: ["k"], conditions: [{ property: "square_feet", _gt: 3 }] }],
      residenceCount: 3, createdAt: "t",
    },
    {
      stream_name: "orders", stream_conditions: [{ property: "order_date", _on_or_after: "2024-01-01" }],
      location_conditions: [{ atlas_id: "a", location_reference_keys: ["k"], conditions: [{ property: "square_feet", _gt: 3 }] }],
      residence_count: 3, created_at: "t",
    }],
  ["patch of a union member and a removed record entry", "datasets", "patch",
    { identitySets: { old_set: null }, options: { headerRow: true } },
    { identity_sets: { old_set: null }, options: { header_row: true } }],
  ["connection secrets", "connections", "create",
    { options: { type: "databricks", httpPath: "p", clientSecret: "x" } },
    { options: { type: "databricks", http_path: "p", client_secret: "x" } }],
  ["persona set clustering keyed by stream", "persona_sets", "create",
    { clusteringDimensions: { streams: { web_visits: ["page_type"] }, attributeMaxObservationDate: "2024-01-01" } },
    { clustering_dimensions: { streams: { web_visits: ["page_type"] }, attribute_max_observation_date: "2024-01-01" } }],
];

describe("camelCase <-> wire naming", () => {
  it.each(pairs)("%s", (_what, collection, form, camel, wire) => {
    const schema = families[collection][form];
    expect(toWire(schema, camel)).toEqual(wire);
    expect(fromWire(schema, wire)).toEqual(camel);
  });

  it("leaves members that are not fields for validation to name", () => {
    expect(toWire(families.cohorts.create, { name: "x", bogusField: 1 })).toEqual({ name: "x", bogusField: 1 });
  });

  it("keeps operator keys and digits", () => {
    expect(camelKey("_on_or_before")).toBe("_on_or_before");
    expect(camelKey("address_line_1")).toBe("addressLine1");
    expect(camelKey("v1_account_id")).toBe("v1AccountId");
  });
});

describe("camelCase types", () => {
  it("describe what a program writes", async () => {
    const { families: f } = await import("pulumi-audience/sdk/contract");
    type Target = import("pulumi-audience/sdk/contract").Camel<import("pulumi-audience/sdk").CreateBody<"targets">>;
    const program: Target = {
      name: "CSV", scopeId: "s", representation: { mode: "hashed", transformPreset: "p" }, options: { type: "hosted_csv", quoteAll: true },
      filter: { cohortMembership: [{ cohortId: "c", _eq: true }] }, limit: { method: "row_count", threshold: 10 },
    };
    expect(toWire(f.targets.create, program)).toMatchObject({ scope_id: "s", options: { quote_all: true }, filter: { cohort_membership: [{ cohort_id: "c" }] } });
  });
});
