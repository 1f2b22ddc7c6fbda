import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Collection, COMMON_READ_ONLY, families, SECRET_PLACEHOLDER, validate } from "pulumi-audience/sdk/contract";
import * as defined from "../../sdk/contract/generated/family-modules.ts";
import { definedFamilies, FAMILY_MODULES_FILE, familyModules } from "../../scripts/family-modules.ts";
import { placeholderIds } from "../corpus/check-cases.ts";
import { samples } from "../samples.ts";

const A = "6f1c2a9e-0a8b-4c3d-9e2f-1a2b3c4d5e6f";
const B = "0d3e8a6c-51b7-4f0a-8c2d-7e9f1a2b3c4d";

/** A valid create body per creatable family, and what the service stores for it (defaults applied). */
const valid: Partial<Record<Collection, { body: Record<string, unknown>; stored?: Record<string, unknown> }>> = {
  scopes: { body: { name: "Leads", population: { cohort_ids: [A] }, payload: { outcome_ids: [B] }, preview: true } },
  targets: {
    body: { name: "CSV", scope_id: A, representation: { mode: "identified" }, options: { type: "hosted_csv" } },
    stored: {
      name: "CSV", scope_id: A, options: { type: "hosted_csv" },
      representation: { mode: "identified", impute_payload: [], output_multiple_identities: false },
    },
  },
  cohorts: { body: { name: "Leads" }, stored: { name: "Leads", explore: false } },
  atlases: {
    body: { name: "Stores", options: { type: "hosted_csv", upload_directory: "stores" }, output_to_locations: { name: "store", latitude: "lat", longitude: "lon" } },
  },
  streams: { body: { name: "orders", properties: { amount: { type: "double" } } } },
  traits: { body: { name: "loyalty_tier", statistical_type: "categorical_ordinal" } },
  attributes: { body: { name: "spend", sources: [{ authority: "pos", source_column: "total", effective_from: "2024-01-01" }] } },
  feature_stores: { body: { name: "Main", attribute_ids: [A] } },
  persona_sets: { body: { name: "Personas", cohort_id: A }, stored: { name: "Personas", cohort_id: A, explore: false } },
  outcomes: {
    body: { name: "Conversion", attainment_cohort_id: A, eligible_cohort_id: B },
    stored: { name: "Conversion", attainment_cohort_id: A, eligible_cohort_id: B, prediction_mode: "auto" },
  },
  recommenders: { body: { name: "Next product", stream_name: "orders", stream_property_name: "sku" } },
  datasets: {
    body: { name: "CRM", identity_sets: { customer: { email: "Email" } }, options: { type: "hosted_csv", upload_directory: "crm" } },
  },
  connections: {
    body: { name: "Warehouse", options: { type: "snowflake", database: "d", user: "u", warehouse: "w", password: "pw" } },
  },
  accounts: { body: { name: "Brand A" } },
  webhook_endpoints: {
    body: { url: "https://example.com/hooks", enabled_events: ["resource.errored"] },
    stored: { url: "https://example.com/hooks", enabled_events: ["resource.errored"], status: "enabled" },
  },
  migrations: { body: { type: "identity_graph_v1_to_v2", v1_account_id: A, v2_account_id: B } },
  audits: { body: {} },
  use_cases: { body: { name: "Win back lapsed customers", guide: "..." } },
  insights: { body: {} },
  market_opportunity_analyses: {
    body: { name: "Stores", scope_id: A, locations: { atlas_ids: [B] } },
    stored: { name: "Stores", scope_id: A, locations: { atlas_ids: [B] }, aggregate: "person" },
  },
  places: { body: { name: "HQ", geojson: { type: "Point", coordinates: [-73.2, 44.5] }, addresses: [{ house_number_and_street: "1 Main St", city: "Burlington", state: "VT", postcode: "05401" }] } },
};

/** The family's body above, with what the service stores; else the body of its sample in test/samples.ts. */
async function validSample(collection: Collection): Promise<{ body: Record<string, unknown>; stored?: Record<string, unknown> } | undefined> {
  const own = valid[collection];
  if (own) return { body: own.body, stored: own.stored ?? own.body };
  const sample = samples[collection];
  return sample && { body: await sample.body(placeholderIds) };
}

describe("families registry", () => {
  it.each(Object.entries(families))("%s is registered under its collection name", (key, family) => {
    expect(family.collection).toBe(key);
  });

  it("registers every family a module defines, once", () => {
    const registered: unknown[] = Object.values(families);
    expect(new Set(registered).size).toBe(registered.length);
    expect(Object.entries(defined).filter(([, family]) => !registered.includes(family)).map(([name]) => name)).toEqual([]);
  });

  it("reaches them through the generated list (run `npm run gen:types` after adding a family)", () => {
    expect(readFileSync(FAMILY_MODULES_FILE, "utf8")).toBe(familyModules());
  });

  it("lists exactly the families a module exports from defineFamily", () => {
    const source = `export const widget = defineFamily({});\nconst hidden = defineFamily({});\nexport const shape = z.object({});
export const gadget = defineFamily({}), other = 1;`;
    expect(definedFamilies("widget.ts", source)).toEqual(["widget", "gadget"]);
  });

  it.each(Object.entries(families).filter(([, f]) => f.creatable))("%s has a valid create body that passes", async (key, family) => {
    const sample = await validSample(key as Collection);
    expect(sample, `no sample body for ${key}: add one to test/samples.ts`).toBeDefined();
    const result = validate(family.create, sample?.body, family.readOnly);
    if (sample?.stored === undefined) expect(result.ok, JSON.stringify(result)).toBe(true);
    else expect(result).toEqual({ ok: true, value: sample.stored });
  });

  it.each(Object.entries(families).filter(([, f]) => f.creatable))("%s refuses its read-only members on create", async (key, family) => {
    const body = { ...(await validSample(key as Collection))?.body, id: A, created_at: "2024-01-01T00:00:00Z" };
    const result = validate(family.create, body, family.readOnly);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual(expect.arrayContaining([
        expect.objectContaining({ path: "id", message: "is read-only and cannot be set" }),
        expect.objectContaining({ path: "created_at", message: "is read-only and cannot be set" }),
      ]));
    }
  });

  it.each(Object.entries(families).filter(([, f]) => f.creatable && f.readOnly.length > 0))(
    "%s's response accepts what the service answers, extra members included",
    (key, family) => {
      const answer = {
        ...valid[key as Collection]?.stored ?? valid[key as Collection]?.body,
        id: A, name: "x", created_at: "2024-01-01T00:00:00Z", updated_at: "2024-01-01T00:00:00Z",
        resource_type: key, status: key === "webhook_endpoints" ? "enabled" : "ready", status_error: null,
        some_new_server_field: { nested: true },
      };
      const parsed = family.response.safeParse(answer);
      expect(parsed.error?.issues).toBeUndefined();
      expect(parsed.data).toMatchObject({ id: A, some_new_server_field: { nested: true } });
    },
  );

  it("names each family's secrets by their wire path and answers them with the placeholder", () => {
    expect(families.connections.secrets).toEqual(expect.arrayContaining(["options.password", "options.token", "options.client_secret", "options.private_key"]));
    expect(families.accounts.secrets).toEqual(["api_key"]);
    expect(families.webhook_endpoints.secrets).toEqual(["secret"]);
    expect(families.webhook_endpoints.readOnly).toContain("secret");
    const answered = families.connections.response.parse({
      id: A, name: "w", created_at: "t", updated_at: "t", resource_type: "connections", status: "ready",
      options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u", password: SECRET_PLACEHOLDER },
    });
    expect(answered.options).toMatchObject({ password: SECRET_PLACEHOLDER });
  });

  it("gives the capabilities the spec describes", () => {
    expect(families.forecasts).toMatchObject({ creatable: false, deletable: false, builds: true });
    expect(families.locations).toMatchObject({ creatable: false, deletable: false });
    expect(families.insights).toMatchObject({ singleton: true });
    expect(families.audits).toMatchObject({ path: "accounts/current/audits", createdStatus: 202 });
    expect(families.use_cases.path).toBe("knowledgebase/use_cases");
    expect(families.accounts.deletion).toBe("scheduled");
    expect(families.scopes.deletion).toBe("immediate");
    expect(families.migrations.references).toEqual([]); // a migration is never a dependency
    expect(families.webhook_endpoints.readOnly).not.toContain("status"); // enabled / disabled is the client's to set
  });

  it.each(Object.entries(families))("%s has object create and response bodies (read-only and patchable members come from their shapes)", (_key, family) => {
    expect(family.create).toBeInstanceOf(z.ZodObject);
    expect(family.response).toBeInstanceOf(z.ZodObject);
  });

  it("makes every server-computed member read-only: the response members a create body does not have", () => {
    expect(families.targets.readOnly).toEqual([...COMMON_READ_ONLY, "output_url", "managed"]);
    expect(families.scopes.readOnly).toEqual(expect.arrayContaining(["status", "population_count", "population_residence_count", "columns", "report_url"]));
    expect(families.scopes.readOnly).not.toContain("name");
    expect(families.forecasts.readOnly).toEqual([...COMMON_READ_ONLY, "managed"]);
    // Families the API never writes list their own.
    expect(families.locations.readOnly).toContain("name");
  });

  it("only references collections that exist", () => {
    for (const family of Object.values(families)) {
      for (const ref of family.references) expect(Object.keys(families), `${family.collection} ${ref.path}`).toContain(ref.collection);
    }
  });

  it("builds a family's patch, response and read-only members when they are first read, once, as plain members", async () => {
    vi.resetModules();
    const fresh = (await import("../../sdk/contract/index.ts")).families;
    const built = (family: object, key: string) => "value" in Object.getOwnPropertyDescriptor(family, key)!;
    // Loading the contract builds none of them: start-up pays only for what a command reads.
    for (const family of Object.values(fresh)) {
      for (const key of ["patch", "response"]) expect(built(family, key), `${family.collection}.${key}`).toBe(false);
    }
    const { cohorts } = fresh;
    expect(Object.keys(cohorts)).toEqual(expect.arrayContaining(["create", "patch", "response", "readOnly"]));
    const response = cohorts.response;
    expect(built(cohorts, "response")).toBe(true);
    expect(cohorts.response).toBe(response);
    expect(built(cohorts, "patch")).toBe(false);
    expect(cohorts.readOnly).toEqual(expect.arrayContaining(["population_count", "managed"]));
    expect(cohorts.patch.safeParse({ min_count: null }).success).toBe(true);
    expect({ ...cohorts }.patch).toBe(cohorts.patch);
  });
});

describe("defaults the service applies on create", () => {
  const cases: [string, Collection, Record<string, unknown>, string, unknown][] = [
    ["cohort explore", "cohorts", { name: "c" }, "explore", false],
    ["persona set explore", "persona_sets", { name: "p", cohort_id: A }, "explore", false],
    ["outcome prediction_mode", "outcomes", { name: "o", attainment_cohort_id: A }, "prediction_mode", "auto"],
    ["webhook status", "webhook_endpoints", { url: "https://x.example", enabled_events: ["resource.errored"] }, "status", "enabled"],
    ["analysis aggregate", "market_opportunity_analyses", { name: "m" }, "aggregate", "person"],
    ["scope location selection and units", "scopes",
      { name: "s", population: { cohort_ids: [A] }, payload: { location: { atlas_ids: [B] } }, preview: false },
      "payload", { location: { atlas_ids: [B], selection: "nearest", distance_output_units: "meters" } }],
    ["target representation switches", "targets",
      { name: "t", scope_id: A, representation: { mode: "referenced", reference: { dataset_id: B, column_name: "id" } }, options: { type: "lookup_api" } },
      "representation", { mode: "referenced", reference: { dataset_id: B, column_name: "id" }, impute_payload: [], output_multiple_identities: false }],
  ];
  it.each(cases)("%s", (_what, collection, body, member, value) => {
    const result = validate(families[collection].create, body);
    expect(result.ok && (result.value as Record<string, unknown>)[member]).toEqual(value);
  });

  it("keeps a value the client gave over the default", () => {
    const result = validate(families.outcomes.create, { name: "o", attainment_cohort_id: A, prediction_mode: "static" });
    expect(result.ok && result.value.prediction_mode).toBe("static");
  });
});
