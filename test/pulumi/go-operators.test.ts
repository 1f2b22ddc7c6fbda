// Every member settable from Go: each schema property of the generated Go SDK's types reaches a field of its own
// (the `$gte`-style operators included), and a Go program (fixtures/go-every-operator) that sets each operator kind
// on a date condition, attribute and trait conditions and a target filter deploys through the real CLI; the
// service answers them exactly as written, under its own names (`_gte`, `_on_or_after`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pulumiCli, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";
import { goStack } from "./go-program.ts";
import { generatedSdk } from "./sdks.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "go-every-operator");
const cli = pulumiCli();
const service = emulatedService();

interface SchemaType {
  type?: string;
  properties?: Record<string, unknown>;
}

/** The fields of `type <name> struct { ... }` in Go source: tag (the schema's name) to Go field name. */
function structFields(source: string, name: string): Map<string, string> | undefined {
  const body = new RegExp(`^type ${name} struct \\{\\n([\\s\\S]*?)^\\}`, "m").exec(source)?.[1];
  if (body === undefined) return undefined;
  return new Map([...body.matchAll(/^\t(\w+) .*`pulumi:"([^"]+)"`$/gm)].map((m) => [m[2]!, m[1]!]));
}

describe(`every operator set from Go, read back from the service${skipReason()}`, { timeout: 400_000 }, () => {
  if (!cli.dir) return;

  it("the generated Go SDK gives each property of each object type a field of its own", () => {
    const sdk = generatedSdk("go");
    const schema = JSON.parse(readFileSync(join(sdk, "..", "schema.json"), "utf8")) as { types: Record<string, SchemaType> };
    const source = readFileSync(join(sdk, "audience", "pulumiTypes.go"), "utf8");
    const unreachable: string[] = [];
    let operators = 0;
    for (const [token, type] of Object.entries(schema.types)) {
      if (type.type !== "object") continue;
      // A type named `...Output` is `...OutputType` in Go: `ScopePayloadOutput` is the output type of ScopePayload.
      const goName = token.split(":").pop()!.replace(/Output$/, "OutputType");
      for (const struct of [goName, `${goName}Args`]) {
        const fields = structFields(source, struct);
        if (!fields) {
          unreachable.push(`${token}: no struct ${struct}`);
          continue;
        }
        for (const property of Object.keys(type.properties ?? {})) {
          const field = fields.get(property);
          if (!field) unreachable.push(`${token}.${property}: no field in ${struct}`);
          else if (property.startsWith("$")) {
            operators++;
            // `$onOrAfter` is OnOrAfter: the `$` dropped, the first letter capitalised.
            expect(field, `${token}.${property}`).toBe(property.slice(1, 2).toUpperCase() + property.slice(2));
          }
        }
        expect(new Set(fields.values()).size, `${struct}: two properties share a Go name`).toBe(fields.size);
      }
    }
    expect(unreachable).toEqual([]);
    expect(operators).toBeGreaterThan(100);
  });

  it("deploys each operator kind and reads them back as written", async () => {
    const apiKey = await service.createAccount("go-operators");
    // Attribute filters need an identity graph on the account.
    const graph = await fetch(`${service.baseUrl()}/accounts/current`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ identity_graph: "v2" }),
    });
    expect(graph.status).toBe(200);
    const stack = await goStack(FIXTURE, { AUDIENCE_BASE_URL: service.baseUrl() });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.must(["up", "--yes"]);
    const { leadsId, cohortId, targetId } = (await stack.outputs()) as Record<string, string>;

    const cohort = (await (await service.get(apiKey, `cohorts/${cohortId}`)).json()) as Record<string, unknown>;
    expect(cohort["stream_conditions"]).toEqual([
      { property: "datetime", _on_or_after: "2025-01-01" },
      { property: "datetime", _on_or_before: "2026-11-01", optional: true },
      { property: "amount", _gt: 1 },
      { property: "amount", _gte: 2.5 },
      { property: "amount", _lt: 1000 },
      { property: "amount", _lte: 999 },
      { property: "category", _eq: "apparel" },
      { property: "category", _in: ["apparel", "home"] },
      { property: "category", _nin: ["grocery"] },
      { property: "product", _matches: "^sh" },
      { property: "channel", _nnull: true },
      { property: "channel", _null: false },
    ]);
    expect(cohort["attributes"]).toEqual([
      { name: "ig/age", _gt: 17 },
      { name: "ig/age", _gte: 18 },
      { name: "ig/age", _lt: 80 },
      { name: "ig/age", _lte: 79, optional: true },
      { name: "ig/age", _eq: 40 },
      { name: "ig/individual_marital_status", _in: ["single", "married"] },
      { name: "ig/individual_marital_status", _nin: ["widowed"] },
      { name: "ig/individual_marital_status", _matches: "^(single|married)$" },
      { name: "ig/household_income_v2", _nnull: true },
      { name: "ig/length_of_residence_v2", _null: false },
    ]);
    expect(cohort["traits"]).toEqual([
      { name: "loyalty_tier", _eq: "gold" },
      { name: "newsletter_opt_in", _eq: true },
      { name: "lifetime_value", _gte: 100, _lt: 5000 },
    ]);

    const target = (await (await service.get(apiKey, `targets/${targetId}`)).json()) as Record<string, unknown>;
    expect(target["filter"]).toEqual({
      cohort_membership: [{ cohort_id: leadsId, _eq: true }],
      trait: [
        { name: "loyalty_tier", _eq: "gold" },
        { name: "loyalty_tier", _in: ["gold", "platinum"] },
        { name: "loyalty_tier", _nin: ["bronze"] },
        { name: "loyalty_tier", _matches: "^(gold|platinum)$" },
        { name: "lifetime_value", _gt: 10 },
        { name: "lifetime_value", _gte: 10.5 },
        { name: "lifetime_value", _lt: 9000 },
        { name: "lifetime_value", _lte: 8999 },
        { name: "newsletter_opt_in", _nnull: true },
        { name: "newsletter_opt_in", _null: false },
      ],
      attribute: [
        { name: "ig/age", _eq: 40 },
        { name: "ig/age", _gt: 17 },
        { name: "ig/age", _gte: 18 },
        { name: "ig/age", _lt: 80 },
        { name: "ig/age", _lte: 79 },
        { name: "ig/individual_marital_status", _in: ["single", "married"] },
        { name: "ig/individual_marital_status", _nin: ["widowed"] },
        { name: "ig/individual_marital_status", _matches: "^s" },
        { name: "ig/household_income_v2", _nnull: true },
        { name: "ig/length_of_residence_v2", _null: false },
      ],
    });

    // What the service answers is what the program declares: nothing to change, then nothing left.
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--yes", "--skip-preview", "--expect-no-changes"]);
    await stack.must(["destroy", "--yes", "--skip-preview"]);
    expect((await service.get(apiKey, `cohorts/${cohortId}`)).status).toBeOneOf([404, 410]);
  });
});
