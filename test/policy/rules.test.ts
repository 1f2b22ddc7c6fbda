// Each rule of the pack, called as the analyzer calls it (see harness.ts), on resources of both faces.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  accountQuota, audiencePolicies, credentialsFromSecrets, DEFAULT_ALLOWED_DESTINATIONS, identifiedDeliveryAllowList, naming,
  noDeprecated, noImputedIdentified, scopeCreatedInPreview,
} from "pulumi-audience/policy";
import { RECORDING_SECRETS } from "../../policy/secret-members.ts";
import { dynamicType, nativeType, runResourcePolicy, runStackPolicy, secret, UNKNOWN, urnOf, type Crafted } from "./harness.ts";

const ID = "00000000-0000-4000-8000-000000000001";
const SOURCES = "credentialSources";

const connection = (type: (c: string) => string, options: Record<string, unknown>, sources?: unknown): Crafted => ({
  type: type("Connection"), name: "warehouse", props: { name: "Warehouse", options, ...(sources === undefined ? {} : { [SOURCES]: sources }) },
});
const target = (type: (c: string) => string, representation: unknown, options: unknown, extra: Record<string, unknown> = {}): Crafted => ({
  type: type("Target"), name: "export", props: { name: "growth-export", scopeId: ID, representation, options, ...extra },
});
const scope = (type: (c: string) => string, props: Record<string, unknown>, name = "pipeline"): Crafted => ({
  type: type("Scope"), name, props: { name: "growth-pipeline", population: { cohortIds: [ID] }, payload: { outcomeIds: [ID] }, preview: true, ...props },
});
const postgres = { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" };

describe.each([["dynamic", dynamicType], ["native", nativeType]] as const)("the %s face", (_face, type) => {
  describe("credentials from secrets", () => {
    it("flags a credential the program gave in plain text, naming the member", async () => {
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, postgres, { "options.password": "plain" }))).toEqual([
        'Connection "Warehouse": options.password is given in plain text (a string in the program or non-secret config), so it is in the program\'s source; pass a secret instead (config.requireSecret, pulumi.secret or a secret output).',
      ]);
    });

    it("passes a credential that came from a secret, and names each plain one of several", async () => {
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, postgres, { "options.password": "secret" }))).toEqual([]);
      const databricks = { type: "databricks", host: "h", httpPath: "/p", catalog: "c", schema: "s", token: "t", clientId: "id", clientSecret: "cs" };
      const found = await runResourcePolicy(credentialsFromSecrets, connection(type, databricks, { "options.token": "secret", "options.clientSecret": "plain" }));
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(/^Connection "Warehouse": options\.clientSecret is given in plain text/);
    });

    it("judges a credential unknown in preview by its record, and leaves one inside an unknown object for up", async () => {
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, { ...postgres, password: UNKNOWN }, { "options.password": "plain" }))).toHaveLength(1);
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, UNKNOWN as never, { "options.password": "plain" }))).toEqual([]);
    });

    it("passes an unrecorded credential (another language's SDK) unless configured to flag it", async () => {
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, postgres))).toEqual([]);
      // From secret config or not (it reaches the pack secret either way): the message says what can be done.
      expect(await runResourcePolicy(credentialsFromSecrets, connection(type, { ...postgres, password: secret("from-secret-config") }), { flagUnrecorded: true })).toEqual([
        'Connection "Warehouse": options.password cannot be proven to come from a secret: only the pulumi-audience TypeScript classes record where a credential came from, and this resource was declared without them (Pulumi YAML, Python, Go); declare it through the TypeScript classes, or run this stack\'s policy with flagUnrecorded set to false.',
      ]);
    });

    it("says nothing of credentials only the service answers (an account's API key, a webhook endpoint's signing key)", async () => {
      const webhook = { type: type("WebhookEndpoint"), name: "hook", props: { name: "Hook", url: "https://example.com/h" } };
      const account = { type: type("Account"), name: "brand", props: { name: "Brand" } };
      for (const resource of [webhook, account]) expect(await runResourcePolicy(credentialsFromSecrets, resource, { flagUnrecorded: true })).toEqual([]);
      expect(credentialsFromSecrets.description).not.toMatch(/API key|webhook/i);
    });
  });

  describe("identified delivery", () => {
    it("flags people in clear delivered to a hosted CSV, naming the member and the allow-list", async () => {
      expect(await runResourcePolicy(identifiedDeliveryAllowList, target(type, { mode: "identified" }, { type: "hosted_csv" }))).toEqual([
        `Target "growth-export": representation.mode identified delivers people in clear to options.type hosted_csv (the service hosts it: anyone holding its URL or key reads it), which is not among the allowed destinations (${DEFAULT_ALLOWED_DESTINATIONS.join(", ")}); deliver hashed, referenced or aggregated, or to an allowed destination.`,
      ]);
    });

    it("follows the configured allow-list and passes other modes", async () => {
      const snowflake = target(type, { mode: "identified" }, { type: "snowflake", tableName: "t" }, { connectionId: ID });
      expect(await runResourcePolicy(identifiedDeliveryAllowList, snowflake)).toEqual([]);
      expect(await runResourcePolicy(identifiedDeliveryAllowList, snowflake, { allowedDestinations: ["bigquery"] })).toEqual([expect.stringContaining("options.type snowflake, which is not among the allowed destinations (bigquery)")]);
      expect(await runResourcePolicy(identifiedDeliveryAllowList, target(type, { mode: "hashed" }, { type: "hosted_csv" }))).toEqual([]);
    });

    it("waits for a mode or destination unknown in preview", async () => {
      expect(await runResourcePolicy(identifiedDeliveryAllowList, target(type, { mode: UNKNOWN }, { type: "hosted_csv" }))).toEqual([]);
      expect(await runResourcePolicy(identifiedDeliveryAllowList, target(type, { mode: "identified" }, UNKNOWN))).toEqual([]);
    });
  });

  describe("imputed attributes on identified deliveries", () => {
    it("flags imputePayload attributes on an identified target only", async () => {
      expect(await runResourcePolicy(noImputedIdentified, target(type, { mode: "identified", imputePayload: ["attributes"] }, { type: "hosted_csv" }))).toEqual([
        expect.stringMatching(/^Target "growth-export": representation\.imputePayload includes attributes on an identified delivery/),
      ]);
      expect(await runResourcePolicy(noImputedIdentified, target(type, { mode: "hashed", imputePayload: ["attributes"] }, { type: "hosted_csv" }))).toEqual([]);
      expect(await runResourcePolicy(noImputedIdentified, target(type, { mode: "identified", imputePayload: UNKNOWN }, { type: "hosted_csv" }))).toEqual([]);
    });
  });

  describe("deprecated members and families", () => {
    it("flags each deprecated member with its replacement, in the program's names", async () => {
      const cohort = { type: type("Cohort"), name: "buyers", props: { name: "Buyers", streamName: "orders", placeConditions: [{ a: 1 }] } };
      expect(await runResourcePolicy(noDeprecated, cohort)).toEqual(['Cohort "Buyers": placeConditions is deprecated. Use `locationConditions`; the two cannot be set together.']);
      const referenced = target(type, { mode: "referenced", referenceDatasetId: UNKNOWN }, { type: "hosted_csv" }, { filter: { outcomeScore: [{ outcomeId: ID, _gte: 50 }] } });
      expect(await runResourcePolicy(noDeprecated, referenced)).toEqual([
        'Target "growth-export": representation.referenceDatasetId is deprecated. Use `reference: {datasetId, columnName}`.',
        'Target "growth-export": filter.outcomeScore is deprecated. Use `outcomePercentile` or `outcomeProbability`.',
      ]);
    });

    it("finds deprecated members inside maps, and flags a deprecated family", async () => {
      const dataset = { type: type("Dataset"), name: "crm", props: { name: "CRM", identitySets: { customers: { addressLine1: "street" } } } };
      expect(await runResourcePolicy(noDeprecated, dataset)).toEqual(['Dataset "CRM": identitySets.customers.addressLine1 is deprecated. Use `houseNumberAndStreet`.']);
      const place = { type: type("Place"), name: "hq", props: { name: "HQ" } };
      expect(await runResourcePolicy(noDeprecated, place)).toEqual(['Place "HQ": Place is deprecated. Use `Atlas` and its locations; the service keeps places only for compatibility.']);
      const personaSet = { type: type("PersonaSet"), name: "p", props: { name: "P", cohortId: ID, modelingFields: ["age"] } };
      expect(await runResourcePolicy(noDeprecated, personaSet)).toEqual(['PersonaSet "P": modelingFields is deprecated. Use `clusteringDimensions.traits`.']);
    });
  });

  describe("naming", () => {
    it("flags a Scope or Target name off the configured pattern, and nothing without a pattern", async () => {
      const badly = scope(type, { name: "Pipeline 1" });
      expect(await runResourcePolicy(naming, badly)).toEqual([]);
      expect(await runResourcePolicy(naming, badly, { pattern: "^growth-[a-z0-9-]+$" })).toEqual(['Scope "Pipeline 1": name "Pipeline 1" does not match the naming rule ^growth-[a-z0-9-]+$.']);
      expect(await runResourcePolicy(naming, scope(type, {}), { pattern: "^growth-[a-z0-9-]+$" })).toEqual([]);
      expect(await runResourcePolicy(naming, scope(type, { name: UNKNOWN }), { pattern: "^growth-" })).toEqual([]);
    });

    it("holds only the configured classes to it, and names a pattern that does not compile", async () => {
      const cohort = { type: type("Cohort"), name: "c", props: { name: "Buyers" } };
      expect(await runResourcePolicy(naming, cohort, { pattern: "^growth-" })).toEqual([]);
      expect(await runResourcePolicy(naming, cohort, { pattern: "^growth-", classes: ["Cohort"] })).toHaveLength(1);
      await expect(runResourcePolicy(naming, cohort, { pattern: "(", classes: ["Cohort"] })).rejects.toThrow(`audience-naming: the configured pattern "(" is not a JavaScript regular expression (Invalid regular expression: /(/: Unterminated group); fix "pattern" in the policy pack's config`);
    });

    it("compiles the pattern as new RegExp(pattern) does: identity escapes such as \\_ are taken", async () => {
      expect(await runResourcePolicy(naming, scope(type, { name: "growth_x" }), { pattern: "^growth\\_x$" })).toEqual([]);
      expect(await runResourcePolicy(naming, scope(type, { name: "growth-x" }), { pattern: "^growth\\_x$" })).toHaveLength(1);
    });
  });

  describe("scopes created in preview (stack)", () => {
    it("flags a scope the plan creates with preview: false, by its URN, and not one that exists or is adopted", async () => {
      const created = scope(type, { preview: false, createdAt: UNKNOWN }, "new-one");
      const existing = scope(type, { preview: false, createdAt: "2024-05-01T00:00:00Z" }, "old-one");
      const adopted = scope(type, { preview: false, adoptId: ID, createdAt: UNKNOWN }, "adopted");
      const unknownYet = scope(type, { preview: UNKNOWN, createdAt: UNKNOWN }, "later");
      expect(await runStackPolicy(scopeCreatedInPreview, [created, existing, adopted, unknownYet])).toEqual([{
        message: 'Scope "growth-pipeline": a new scope is created with preview: false; create it with preview: true, check its output, then set preview to false.',
        urn: urnOf(created),
      }]);
    });
  });

  it("passes an existing scope whose preview an update turns off: in a preview its planned outputs are its inputs", async () => {
    // What both faces hand a stack policy in `pulumi preview` for that update (and for a create alike): no createdAt.
    const turnedOff = scope(type, { preview: false }, "s0");
    expect(await runStackPolicy(scopeCreatedInPreview, [turnedOff])).toEqual([]);
  });

  describe("account quota (stack)", () => {
    it("counts what the stack holds and creates per account and class, against config", async () => {
      const targets = ["c", "a", "b"].map((n) => ({ ...target(type, { mode: "hashed" }, { type: "hosted_csv" }), name: n, props: { name: `t-${n}`, representation: { mode: "hashed" }, options: { type: "hosted_csv" } } }));
      const other = { ...targets[0]!, name: "d", props: { ...targets[0]!.props, name: "t-d", account: "brand" } };
      const later = { ...targets[0]!, name: "e", props: { ...targets[0]!.props, name: "t-e", account: UNKNOWN } };
      const stack = [...targets, other, later, { type: "pulumi:providers:audience", name: "default", props: {} }];
      expect(await runStackPolicy(accountQuota, stack)).toEqual([]);
      expect(await runStackPolicy(accountQuota, stack, { quotas: { Target: 3 } })).toEqual([]);
      expect(await runStackPolicy(accountQuota, stack, { quotas: { Target: 2 }, accounts: { brand: { Target: 5 } } })).toEqual([{
        message: 'Account "default": the stack would hold 3 Target resources (t-a, t-b, t-c), over the account\'s quota of 2.', urn: undefined,
      }]);
      expect(await runStackPolicy(accountQuota, stack, { quotas: { Target: 9 }, accounts: { brand: { Target: 0 } } })).toEqual([{
        message: 'Account "brand": the stack would hold 1 Target resources (t-d), over the account\'s quota of 0.', urn: undefined,
      }]);
    });

    it("charges a resource of an explicit provider of the native face to that provider's account, as drift names it", async () => {
      const provider = (name: string) => ({ type: "pulumi:providers:audience", name, urn: `urn:pulumi:dev::policy::pulumi:providers:audience::${name}`, props: {} });
      const stack = [
        { ...scope(type, { name: "growth-d0" }, "d0"), provider: provider("default_0_1_0") },
        { ...scope(type, { name: "growth-d1" }, "d1"), provider: provider("default_0_1_0") },
        { ...scope(type, { name: "growth-n0" }, "n0"), provider: provider("north") },
        { ...scope(type, { name: "growth-n1" }, "n1"), provider: provider("north") },
      ];
      expect(await runStackPolicy(accountQuota, stack, { quotas: { Scope: 2 }, accounts: { "provider north": { Scope: 1 } } })).toEqual([{
        message: 'Account "provider north": the stack would hold 2 Scope resources (growth-n0, growth-n1), over the account\'s quota of 1.', urn: undefined,
      }]);
    });
  });
});

describe.each([["dynamic", dynamicType], ["native", nativeType]] as const)("values the program marked secret, on the %s face", (_face, type) => {
  const hidden = "Top Secret Project";
  const secretScope = scope(type, { name: secret(hidden), preview: false, createdAt: UNKNOWN }, "secret-named");
  const reported = async () => [
    ...await runResourcePolicy(naming, secretScope, { pattern: "^growth-" }),
    ...(await runStackPolicy(scopeCreatedInPreview, [secretScope])).map((v) => v.message),
    ...(await runStackPolicy(accountQuota, [secretScope, scope(type, {}, "other")], { quotas: { Scope: 1 } })).map((v) => v.message),
    ...await runResourcePolicy(credentialsFromSecrets, { ...connection(type, postgres, { "options.password": "plain" }), props: { name: secret(hidden), options: postgres, [SOURCES]: { "options.password": "plain" } } }),
    ...await runResourcePolicy(identifiedDeliveryAllowList, target(type, { mode: "identified" }, secret({ type: "hosted_csv" }))),
  ];

  it("never print it: the resource is named by its Pulumi name, the value shown as [secret]", async () => {
    expect(RECORDING_SECRETS).toBe(true);
    const messages = await reported();
    expect(messages).toEqual([
      'Scope secret-named (name [secret]): name [secret] does not match the naming rule ^growth-.',
      'Scope secret-named (name [secret]): a new scope is created with preview: false; create it with preview: true, check its output, then set preview to false.',
      'Account "default": the stack would hold 2 Scope resources (growth-pipeline, secret-named (name [secret])), over the account\'s quota of 1.',
      expect.stringMatching(/^Connection warehouse \(name \[secret\]\): options\.password is given in plain text/),
      expect.stringMatching(/^Target "growth-export": representation\.mode identified delivers people in clear to options\.type \[secret\], which is not among/),
    ]);
    expect(messages.join("\n")).not.toMatch(/Top Secret|hosted/);
  });
});

describe("the pack's rules", () => {
  it("have distinct names, a description, and credentials mandatory by default", () => {
    const names = audiencePolicies.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    expect(audiencePolicies.every((p) => p.description.length > 0)).toBe(true);
    expect(credentialsFromSecrets.enforcementLevel).toBe("mandatory");
  });

  it("are served as the package's version (@pulumi/policy reads it from the pack folder's package.json)", () => {
    const version = (path: string) => (JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { version: string }).version;
    expect(version("../../policy/package.json")).toBe(version("../../package.json"));
  });

  it("leave resources of other packages alone", async () => {
    const bucket = { type: "aws:s3/bucket:Bucket", name: "b", props: { name: "Pipeline 1", password: "x" } };
    for (const policy of audiencePolicies) {
      if ("validateResource" in policy) expect(await runResourcePolicy(policy, bucket, { pattern: "^growth-", flagUnrecorded: true })).toEqual([]);
    }
  });
});
