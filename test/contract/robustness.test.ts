import { describe, expect, it } from "vitest";
import { families, validate } from "pulumi-audience/sdk/contract";

const A = "6f1c2a9e-0a8b-4c3d-9e2f-1a2b3c4d5e6f";
const ODD: unknown[] = [null, undefined, "", "x", 0, -1, 1.5, true, [], [null], {}, { type: null, mode: 3 }, [{}], [""], { a: null }];

describe("odd input never crashes validation", () => {
  it.each(Object.entries(families))("%s: whole bodies and every member of its create shape", (_key, family) => {
    const members = Object.keys((family.create as unknown as { shape?: Record<string, unknown> }).shape ?? {});
    for (const schema of [family.create, family.patch]) {
      for (const odd of ODD) {
        expect(() => validate(schema, odd, family.readOnly)).not.toThrow();
        for (const member of members) {
          const result = validate(schema, { name: "n", [member]: odd }, family.readOnly);
          if (result.ok) continue;
          for (const e of result.errors) {
            expect(e.message, JSON.stringify(e)).toMatch(/^(is|must|cannot|give)\b/);
            expect(e.message, JSON.stringify(e)).not.toMatch(/Invalid input|Too small|Too big|Unrecognized key|Invalid option/);
          }
          expect(new Set(result.errors.map((e) => e.path)).size, JSON.stringify(result.errors)).toBe(result.errors.length);
        }
      }
    }
  });

  it("says a missing union member is required rather than listing its variants", () => {
    const result = validate(families.targets.create, { name: "t", scope_id: A });
    expect(result.ok ? [] : result.errors).toEqual([
      expect.objectContaining({ path: "representation", message: "is required" }),
      expect.objectContaining({ path: "options", message: "is required" }),
    ]);
  });

  it("names every offending member in one answer, cross-member rules included", () => {
    const result = validate(families.cohorts.create, {
      name: "", location_conditions: [{ atlas_id: A }], place_conditions: [{}], recency: { occurrence: "never" },
    });
    expect(result.ok ? [] : result.errors.map((e) => e.path).sort()).toEqual(["name", "place_conditions", "recency.occurrence"]);
    const target = validate(families.targets.create, {
      name: "t", scope_id: "not-a-uuid", representation: { mode: "identified" }, options: { type: "snowflake", table_name: "t" },
    });
    expect(target.ok ? [] : target.errors.map((e) => e.path).sort()).toEqual(["connection_id", "scope_id"]);
  });
});

describe("secrets in bad bodies", () => {
  const SECRET = "hunter2-very-secret";
  const bodies: unknown[] = [
    { name: "", options: { type: "postgres", host: "h", port: 99999, database: "d", schema: "s", user: "u", password: SECRET } },
    { name: "c", options: { type: "snowflake", private_key: SECRET } },
    { name: "c", options: { type: "databricks", host: "h", http_path: "p", catalog: "c", schema: "s", client_secret: SECRET, extra: SECRET } },
    { name: "c", options: { type: SECRET, password: SECRET } },
    { name: "c", options: { type: "bigquery", project_id: "p", dataset_name: "d", token: SECRET } },
  ];
  it.each(bodies)("are never echoed in validation errors (%#)", (body) => {
    const result = validate(families.connections.create, body, families.connections.readOnly);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });
});
