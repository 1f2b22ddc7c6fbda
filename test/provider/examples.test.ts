// The example programs' wiring under Pulumi's mocks: what each declares and how resources feed each other.
// Lookups are real: they read the emulator, configured through stack config as a user would.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { providerModule } from "../../provider/runtime/resources/shim.ts";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

let emulator: { url: string; apiKey: string; close(): Promise<void> };
const accounts: Record<string, { apiKey: string; leads: string }> = {};

async function get(path: string, apiKey: string): Promise<unknown> {
  const response = await fetch(`${emulator.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return response.json();
}

async function idNamed(path: string, name: string, apiKey = emulator.apiKey): Promise<string> {
  const list = (await get(path, apiKey)) as { id: string; name: string }[];
  return list.find((r) => r.name === name)!.id;
}

function value<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => { resolve(v); return v; }));
}

/** Runs an example program under mocks with the given stack config; answers what it registered and exported. */
async function run(example: string, config: Record<string, string> = {}): Promise<{ resources: Registered[]; exports: Record<string, unknown> }> {
  vi.resetModules();
  const resources: Registered[] = [];
  await pulumi.runtime.setMocks({
    newResource(args) {
      resources.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
      const computed = args.type.endsWith(":Target") ? { outputUrl: `https://files.example.com/${args.name}.csv`, status: "ready" } : { status: "ready" };
      return { id: `${args.name}-id`, state: { ...args.inputs, ...computed } };
    },
    call: (args) => args.inputs,
  }, example, "dev", false);
  pulumi.runtime.setAllConfig({ "audience:apiKey": emulator.apiKey, "audience:baseUrl": emulator.url, ...config }, ["audience:apiKey"]);
  const module = (await import(`../../examples/${example}/index.ts`)) as Record<string, unknown>;
  const exports: Record<string, unknown> = {};
  for (const [key, exported] of Object.entries(module)) {
    if (pulumi.Output.isInstance(exported)) exports[key] = await value(exported);
    else if (exported && typeof exported === "object") {
      exports[key] = Object.fromEntries(await Promise.all(Object.entries(exported).map(async ([k, v]) => [k, pulumi.Output.isInstance(v) ? await value(v) : v])));
    }
  }
  return { resources, exports };
}

const named = (resources: Registered[], name: string) => {
  const found = resources.find((r) => r.name === name);
  if (!found) throw new Error(`${name} not registered; registered: ${resources.map((r) => r.name).join(", ")}`);
  return found;
};

beforeAll(async () => {
  const { emulatorControl, startEmulator } = await import("pulumi-audience/emulator");
  emulator = await startEmulator({ port: 0 });
  for (const brand of ["north", "south"]) {
    const { api_key: apiKey } = await emulatorControl(emulator.url).createAccount({ name: brand });
    accounts[brand] = { apiKey, leads: await idNamed("/cohorts", "Leads", apiKey) };
  }
});
afterAll(async () => emulator?.close());

describe("adaptive-discounting", () => {
  it("joins the Leads cohort to the Forecasted spend forecast and delivers a hosted CSV, as a preview", async () => {
    const { resources, exports } = await run("adaptive-discounting");
    const scope = named(resources, "adaptive-discounting");
    expect(scope.type).toBe("pulumi-nodejs:dynamic/audience:Scope");
    expect(scope.inputs).toMatchObject({
      name: "Adaptive discounting",
      population: { cohortIds: [await idNamed("/cohorts", "Leads")] },
      payload: { forecastIds: [await idNamed("/forecasts", "Forecasted spend")] },
      preview: true,
      waitFor: "ready",
    });
    const target = named(resources, "adaptive-discounting-csv");
    expect(target.type).toBe("pulumi-nodejs:dynamic/audience:Target");
    expect(target.inputs).toMatchObject({ scopeId: "adaptive-discounting-id", representation: { mode: "identified" }, options: { type: "hosted_csv" } });
    expect(exports.csvUrl).toBe("https://files.example.com/adaptive-discounting-csv.csv");
    expect(exports.previewing).toBe(true);
  });

  it("enables the pipeline when the enabled flag is set", async () => {
    const { resources } = await run("adaptive-discounting", { "adaptive-discounting:enabled": "true" });
    expect(named(resources, "adaptive-discounting").inputs.preview).toBe(false);
  });
});

describe("location-pipeline", () => {
  it("wires the atlas into the cohort's location conditions and the scope's location payload, aggregated by postcode", async () => {
    const { resources, exports } = await run("location-pipeline");
    expect(named(resources, "stores-csv").inputs).toMatchObject({ directory: "stores", filename: "stores.csv", content: expect.stringMatching(/^store_id,store_name,lat,lon\n/) });
    expect(named(resources, "stores").inputs).toMatchObject({ options: { type: "hosted_csv", uploadDirectory: "stores" } });
    expect(named(resources, "near-stores").inputs).toMatchObject({ locationConditions: [{ atlasId: "stores-id", distance: 5000 }] });
    expect(named(resources, "store-proximity").inputs).toMatchObject({
      population: { cohortIds: ["near-stores-id"] },
      payload: { location: { atlasIds: ["stores-id"], selection: "nearest", maxDistance: 20_000, distanceOutputUnits: "miles" } },
    });
    expect(named(resources, "store-proximity-by-postcode").inputs).toMatchObject({ scopeId: "store-proximity-id", representation: { mode: "aggregated", aggregate: "postcode" } });
    expect(exports.csvUrl).toBe("https://files.example.com/store-proximity-by-postcode.csv");
  });
});

describe("warehouse-delivery", () => {
  it("delivers through the connection, with the password from secret config", async () => {
    const { resources } = await run("warehouse-delivery", { "warehouse-delivery:warehousePassword": "s3cret-pw" });
    const connection = named(resources, "warehouse");
    // The whole options member travels as a secret (the engine's secret signature wraps it).
    expect(connection.inputs.options).toEqual({
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      value: expect.objectContaining({ type: "postgres", password: "s3cret-pw" }),
    });
    expect(named(resources, "will-buy").inputs).toMatchObject({ eligibleCohortId: await idNamed("/cohorts", "Leads"), attainmentCohortId: await idNamed("/cohorts", "Customers") });
    expect(named(resources, "lead-scoring").inputs).toMatchObject({ payload: { outcomeIds: ["will-buy-id"] } });
    expect(named(resources, "lead-scoring-table").inputs).toMatchObject({ connectionId: "warehouse-id", options: { type: "postgres", tableName: "lead_scores" } });
  });
});

describe("two-accounts", () => {
  it("declares the pipeline in each account, looking the Leads cohort up in that account", async () => {
    const config = JSON.stringify(Object.fromEntries(Object.entries(accounts).map(([brand, a]) => [brand, { apiKey: a.apiKey, baseUrl: emulator.url }])));
    const { resources, exports } = await run("two-accounts", { "audience:accounts": config });
    for (const brand of ["north", "south"]) {
      expect(named(resources, `${brand}-leads`).inputs).toMatchObject({ account: brand, population: { cohortIds: [accounts[brand]!.leads] } });
      expect(named(resources, `${brand}-leads-csv`).inputs).toMatchObject({ account: brand, scopeId: `${brand}-leads-id` });
    }
    expect(accounts.north!.leads).not.toBe(accounts.south!.leads);
    expect(exports.csvUrls).toEqual({ north: "https://files.example.com/north-leads-csv.csv", south: "https://files.example.com/south-leads-csv.csv" });
  });

});

describe("reading an existing resource", () => {
  it("Class.get reads by id under the family's type token, in the named account", async () => {
    const reads: { type: string; id?: string; inputs: Record<string, unknown> }[] = [];
    await pulumi.runtime.setMocks({
      newResource(args) {
        reads.push({ type: args.type, id: args.id, inputs: args.inputs as Record<string, unknown> });
        return { id: args.id ?? `${args.name}-id`, state: { ...args.inputs, name: "Leads" } };
      },
      call: (args) => args.inputs,
    }, "get", "dev", false);
    const audience = await import("pulumi-audience");
    const cohort = audience.Cohort.get("leads", "11111111-1111-4111-8111-111111111111", { account: "north" });
    expect(await value(cohort.name)).toBe("Leads");
    expect(reads).toEqual([{ type: "pulumi-nodejs:dynamic/audience:Cohort", id: "11111111-1111-4111-8111-111111111111", inputs: expect.objectContaining({ __provider: providerModule("cohorts"), account: "north" }) }]);
    expect(reads[0]!.inputs).not.toHaveProperty("__kind");
  });
});

describe("lookups", () => {
  it("find by name or id, and fail listing the names seen, or naming the missing account config", async () => {
    pulumi.runtime.setAllConfig({ "audience:apiKey": emulator.apiKey, "audience:baseUrl": emulator.url }, ["audience:apiKey"]);
    const audience = await import("pulumi-audience");
    const leads = await audience.getCohort({ name: "Leads" });
    expect(leads).toMatchObject({ name: "Leads", resourceType: "cohorts", classic: true });
    expect(await audience.getCohort({ id: leads.id })).toMatchObject({ name: "Leads" });
    expect(await value(audience.getForecastOutput({ name: pulumi.output("Forecasted spend") }))).toMatchObject({ name: "Forecasted spend" });
    await expect(audience.getCohort({ name: "Churned" })).rejects.toThrow(/no cohorts with name "Churned"; names seen: .*"Leads".*"Customers"|no cohorts with name "Churned"; names seen: .*"Customers".*"Leads"/);
    // Two of one name are told apart by their ids.
    const twin = () => fetch(`${emulator.url}/cohorts`, { method: "POST", headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ name: "Twin", stream_name: "transactions" }) }).then(async (r) => ((await r.json()) as { id: string }).id);
    const ids = [await twin(), await twin()];
    await expect(audience.getCohort({ name: "Twin" })).rejects.toThrow(`getCohort: 2 cohorts with name "Twin" (ids ${ids.join(", ")}): look it up by id instead`);
    await expect(audience.getCohort({ id: "leads" })).rejects.toThrow(/^getCohort: id "leads" is not an id of the service \(a uuid\); to find a resource by its name, give name$/);
    // By id, only that id is listed: no names to offer.
    await expect(audience.getCohort({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toThrow(/^getCohort: no cohorts with id 00000000-0000-4000-8000-000000000000$/);
    await expect(audience.getCohort({ name: "Leads", account: "west" })).rejects.toThrow(/west.*audience:accounts/);
    await expect(audience.getCohort({})).rejects.toThrow(/exactly one of name or id/);
  });
});
