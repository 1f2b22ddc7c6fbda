// Credentials never reach `__provider`, outputs, state or logs; connection passwords stay secret; the shim is tiny
// and the same for every resource.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode, startWorld, type Props, type World } from "./harness.ts";

const PROBE = fileURLToPath(new URL("./programs/shim-probe.ts", import.meta.url));
const PROBE_KEY = "sk-probe-9f8e7d6c5b4a";

/** The families the probe declares, by class name. */
const FAMILIES: Record<string, string> = { Cohort: "cohorts", Connection: "connections", Scope: "scopes", Target: "targets" };

interface Registration { type: string; name: string; provider: string; secretInputs: string[]; secretOutputs: string[]; request: string }

describe("what a program records", () => {
  let seen: Registration[];
  beforeAll(async () => {
    const out = await runNode(PROBE, {
      AUDIENCE_API_KEY: PROBE_KEY,
      PULUMI_CONFIG: JSON.stringify({ "audience:apiKey": PROBE_KEY, "audience:baseUrl": "http://127.0.0.1:9" }),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(["audience:apiKey"]),
    });
    seen = JSON.parse(out) as Registration[];
  });

  it("registers each family under pulumi-nodejs:dynamic/audience:<Name>", () => {
    expect(seen.map((r) => r.type).sort()).toEqual([
      "pulumi-nodejs:dynamic/audience:Cohort", "pulumi-nodejs:dynamic/audience:Connection",
      "pulumi-nodejs:dynamic/audience:Scope", "pulumi-nodejs:dynamic/audience:Target",
    ]);
  });

  it("records one small __provider per family, naming its family, holding no key", () => {
    const byType = new Map(seen.map((r) => [r.type, r.provider]));
    expect(new Set(byType.values()).size).toBe(byType.size);
    for (const [type, shim] of byType) {
      // Every resource carries it through its registration, the engine's answer and the state: a few lines.
      expect(shim.length).toBeLessThan(550);
      // Its first line names the family, which the program registers no `__kind` for.
      expect(shim.split("\n")[0]).toBe(`exports.kind = ${JSON.stringify(FAMILIES[type.slice(type.lastIndexOf(":") + 1)])};`);
      // It hands the host the installed package's provider for the project directory, loaded when first called.
      expect(shim).toContain("const dir = process.cwd();");
      expect(shim).toContain('require("module").createRequire(dir + "/")("pulumi-audience/load-provider").dynamicProvider(dir)');
    }
    for (const r of seen) {
      expect(r.request).not.toContain(PROBE_KEY);
      expect(Object.keys(JSON.parse(r.request) as Props)).not.toContain("__kind");
    }
  });

  it("keeps a connection's credential secret on its own, the members around it plain", () => {
    const connection = seen.find((r) => r.name === "warehouse")!;
    expect(connection.secretInputs).toEqual(["options"]);
    const options = (JSON.parse(connection.request) as { options: Props }).options;
    expect(options).toMatchObject({ type: "postgres", host: "db", port: 5432, user: "u" });
    expect(options.password).toEqual({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "hunter2" });
    // Secretness reaches the outputs through the inputs member by member: no whole output is named secret.
    expect(connection.secretOutputs).toEqual([]);
    expect(seen.find((r) => r.name === "pipeline")!.secretOutputs).toEqual([]);
  });
});

describe("through the provider host", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ host: "process" });
  });
  afterAll(async () => world?.close());

  it("keeps the declared password where the service answers <secret>, and never shows the API key", async () => {
    const inputs = world.inputs("connections", { name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } });
    const created = await world.host.create(inputs);
    expect(world.proxy.requests.at(-1)?.method).toBe("POST");
    expect((created.properties.options as Props).password).toBe("hunter2");
    const read = await world.host.read(created.id, created.properties);
    expect((read.properties.options as Props).password).toBe("hunter2");
    expect((read.inputs.options as Props).password).toBe("hunter2");
    expect((await world.host.diff(created.id, read.properties, inputs)).changes).toBe("none");

    // A changed password is sent (the service cannot show the old one), and recorded.
    const rotated = { ...inputs, options: { ...(inputs.options as Props), password: "correct horse" } };
    expect((await world.host.diff(created.id, read.properties, rotated)).changes).toBe("some");
    const updated = await world.host.update(created.id, read.properties, rotated);
    expect(world.proxy.requests.at(-1)?.body).toEqual({ options: { password: "correct horse" } });
    expect((updated.properties.options as Props).password).toBe("correct horse");

    // Failures too: a refused request names the call, never the key.
    await expect(world.host.create(world.inputs("targets", { name: "T", scopeId: "11111111-1111-4111-8111-111111111111", representation: { mode: "identified" }, options: { type: "hosted_csv" } })))
      .rejects.toThrow(/POST \/targets/);

    const everything = JSON.stringify([created, read, updated]) + world.host.logs();
    expect(everything).not.toContain(world.emulator.apiKey);
    expect(world.shim("connections")).not.toContain(world.emulator.apiKey);
  });
});
