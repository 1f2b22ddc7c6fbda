// What the plugin adds over the dynamic provider, over gRPC against the emulator: detailed diffs, replacement of
// create-only members, import by id, secrets, the engine's timeout and cancellation, preview, configuration
// errors, lookups as functions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleIds, type Client, type Json } from "../emulator/helpers.ts";
import { UNKNOWN } from "../../provider/protocol/values.ts";
import { isSecret, Plugin, PluginError, secret, startWorld, type Props, type World } from "./harness.ts";

const TARGET = "audience:index:Target";
const SCOPE = "audience:index:Scope";
const CONNECTION = "audience:index:Connection";

let world: World;
let emulator: World["emulator"];
let api: Client;
let plugin: Plugin;
let cohortId: string;

beforeAll(async () => {
  // Scopes never finish building unless advanced: waits end only by timeout or cancel.
  world = await startWorld({ default: "immediate", scopes: "manual" });
  ({ emulator, api, plugin } = world);
  cohortId = await sampleIds(api).leads();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

async function created(type: string, inputs: Props): Promise<{ id: string; inputs: Props; outputs: Props }> {
  const checked = await plugin.check(type, {}, inputs);
  expect(checked.failures).toEqual([]);
  const made = await plugin.create(type, checked.inputs);
  return { id: made.id, inputs: checked.inputs, outputs: made.properties };
}

const scopeInputs = () => ({ name: "Pipeline", population: { cohortIds: [cohortId] }, payload: { cohortIds: [cohortId] }, preview: true });

async function target(): Promise<{ id: string; inputs: Props; outputs: Props }> {
  const scope = await created(SCOPE, scopeInputs());
  return created(TARGET, { name: "Hosted", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
}

async function recheck(type: string, olds: Props, news: Props): Promise<Props> {
  const checked = await plugin.check(type, olds, news);
  expect(checked.failures).toEqual([]);
  return checked.inputs;
}

describe("check", () => {
  // Pulumi prints a failure's property beside the input of that name, `value {<nil>}` for a nested path.
  it("hands a nested failure over as the resource's, its camelCase path leading the reason", async () => {
    const { failures } = await plugin.check(SCOPE, {}, { ...scopeInputs(), population: { cohortIds: ["not-a-uuid"] } });
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/^population\.cohortIds\[0\]: .*uuid/) }]);
    expect((await plugin.check(SCOPE, {}, { ...scopeInputs(), name: "" })).failures).toEqual([{ property: "name", reason: expect.any(String) }]);
  });

  // For a list or an object the CLI would print Go's dump of it: `value {map[cohortIds:{[]}]}`.
  it("hands a failure of a whole list or object over as the resource's too", async () => {
    const { failures } = await plugin.check(SCOPE, {}, { ...scopeInputs(), payload: {} });
    expect(failures).toEqual([{ property: "", reason: "payload: must name at least one payload element" }]);
  });
});

describe("detailed diff", () => {
  it("names each changed property path with add, update or delete", async () => {
    const { id, inputs, outputs } = await target();
    const news = await recheck(TARGET, inputs, { ...inputs, name: "Hosted file", options: { type: "hosted_csv", delimiter: ";" }, humanReadable: true });
    const diff = await plugin.diff(TARGET, id, outputs, news);
    expect(diff.changes).toBe("some");
    expect(diff.detailed).toEqual({ name: "UPDATE", "options.delimiter": "ADD", humanReadable: "ADD" });
    expect(diff.replaces).toEqual([]);
    expect([...diff.diffs].sort()).toEqual(["humanReadable", "name", "options"]);

    const updated = await plugin.update(TARGET, id, outputs, news);
    const back = await recheck(TARGET, news, { ...news, humanReadable: undefined, options: { type: "hosted_csv" } });
    expect((await plugin.diff(TARGET, id, updated, back)).detailed).toEqual({ "options.delimiter": "DELETE", humanReadable: "DELETE" });
  });

  it("marks a change of a create-only member as a replacement, decided without a request", async () => {
    const { id, inputs, outputs } = await target();
    const news = await recheck(TARGET, inputs, { ...inputs, options: { type: "lookup_api" } });
    const diff = await plugin.diff(TARGET, id, outputs, news);
    expect(diff.replaces).toEqual(["options"]);
    expect(diff.detailed["options.type"]).toBe("UPDATE_REPLACE");
  });
});

describe("import", () => {
  it("reads a resource by its id alone into the outputs and inputs create recorded", async () => {
    const scope = await created(SCOPE, scopeInputs());
    const imported = await plugin.read(SCOPE, scope.id);
    expect(imported.id).toBe(scope.id);
    expect(imported.properties).toEqual(scope.outputs);
    expect(imported.inputs).toEqual(scope.inputs);
    // The engine then checks the program's inputs against them and diffs: nothing to change.
    const checked = await recheck(SCOPE, imported.inputs, scopeInputs());
    expect((await plugin.diff(SCOPE, scope.id, imported.properties, checked)).changes).toBe("none");
  });
});

describe("secrets", () => {
  const connection = () => ({ name: "Warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: secret("hunter2") } });

  it("keeps a secret input secret in checked inputs, outputs and reads, and out of the plugin's output", async () => {
    const made = await created(CONNECTION, connection());
    // The credential is secret on its own; the members around it stay readable.
    const password = (side: Record<string, unknown>) => (side.options as Record<string, Json>).password;
    const host = (side: Record<string, unknown>) => (side.options as Record<string, Json>).host;
    expect(isSecret(password(made.inputs))).toBe(true);
    expect(isSecret(password(made.outputs))).toBe(true);
    expect((password(made.outputs) as { value: Json }).value).toBe("hunter2");
    expect(host(made.outputs)).toBe("db.example.com");
    const read = await plugin.read(CONNECTION, made.id, made.outputs, made.inputs);
    expect(isSecret(password(read.properties))).toBe(true);
    expect(isSecret(password(read.inputs))).toBe(true);
    expect(host(read.properties)).toBe("db.example.com");
    expect(plugin.output).not.toContain("hunter2");
  });

  it("never quotes a secret the program gave in a check's failure", async () => {
    const { failures } = await plugin.check(SCOPE, {}, { ...scopeInputs(), adoptId: secret("not-a-uuid-but-secret") });
    expect(failures.map((f) => f.reason)).toEqual(['adoptId must be the id (a uuid) of an existing Scope; got "[secret]"']);
    // A plain one is quoted, so that the program's mistake can be found.
    expect((await plugin.check(SCOPE, {}, { ...scopeInputs(), adoptId: "not-a-uuid" })).failures[0]?.reason).toContain('got "not-a-uuid"');
  });

  it("makes credential members secret even when the program passed them in plain text", async () => {
    const plain = { ...connection(), options: { ...connection().options, password: "hunter2" } };
    const made = await created(CONNECTION, plain);
    const password = (side: Record<string, unknown>) => (side.options as Record<string, Json>).password;
    expect(isSecret(password(made.inputs))).toBe(true);
    expect(isSecret(password(made.outputs))).toBe(true);
    const imported = await plugin.read(CONNECTION, made.id);
    expect(isSecret(password(imported.properties))).toBe(true);
    expect(isSecret(password(imported.inputs))).toBe(true);
  });
});

describe("the engine's timeout and cancellation", () => {
  it("ends a wait for a build at the step's timeout, keeping the created resource", async () => {
    const inputs = await recheck(SCOPE, {}, { ...scopeInputs(), waitFor: "ready" });
    const error = await plugin.create(SCOPE, inputs, { timeout: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).message).toContain("(customTimeouts)");
    const kept = (error as PluginError).initFailed;
    expect(kept?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept?.properties.status).toBe("new");
  });

  it("stops a wait for a build when the engine cancels", async () => {
    const own = await Plugin.start();
    try {
      await own.configure({ apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` });
      const inputs = await recheck(SCOPE, {}, { ...scopeInputs(), name: "Cancelled", waitFor: "ready" });
      const pending = own.create(SCOPE, inputs).catch((e: unknown) => e);
      // Cancel once the scope exists, i.e. while the plugin waits for its build.
      for (;;) {
        const scopes = (await api.get<Json[]>("/v1/scopes")).body;
        if (scopes.some((s) => s.name === "Cancelled")) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await own.cancel();
      const error = await pending;
      expect(error).toBeInstanceOf(PluginError);
      expect((error as PluginError).message).toContain("cancelled");
      expect((error as PluginError).initFailed?.id).toBeTruthy();
    } finally {
      await own.close();
    }
  });
});

describe("preview", () => {
  it("answers a create or update in preview from the inputs without a request", async () => {
    const before = (await api.get<Json[]>("/v1/scopes")).body.length;
    const inputs = await recheck(SCOPE, {}, { ...scopeInputs(), name: "Only previewed" });
    const previewed = await plugin.create(SCOPE, inputs, { preview: true });
    expect(previewed.id).toBe("");
    expect(previewed.properties.name).toBe("Only previewed");
    // What the service sets is to come, which tells a policy the plan makes the scope.
    expect(previewed.properties).toMatchObject({ createdAt: UNKNOWN, status: UNKNOWN });
    expect((await api.get<Json[]>("/v1/scopes")).body.length).toBe(before);

    const { id, inputs: olds, outputs } = await created(SCOPE, scopeInputs());
    const news = await recheck(SCOPE, olds, { ...olds, name: "Renamed in preview" });
    const updated = await plugin.update(SCOPE, id, outputs, news, { preview: true });
    expect(updated.name).toBe("Renamed in preview");
    expect(updated).not.toHaveProperty("createdAt");
    expect((await api.get<Json>(`/v1/scopes/${id}`)).body.name).toBe("Pipeline");
  });
});

describe("configuration", () => {
  let own: Plugin;
  beforeAll(async () => {
    own = await Plugin.start();
  }, 30_000);
  afterAll(async () => {
    await own?.close();
  });

  it("fails Configure naming the config key that is wrong", async () => {
    const bad = await own.configure({ apiKey: "k", baseUrl: "ftp://example.com" }).catch((e: unknown) => e);
    expect((bad as Error).message).toContain("audience:baseUrl must be an http(s) URL");
    const accounts = await own.configure({ accounts: "[1, 2]" }).catch((e: unknown) => e);
    expect((accounts as Error).message).toContain("audience:accounts");
    const typo = await own.configure({ apikey: "k" }).catch((e: unknown) => e);
    expect((typo as Error).message).toContain("apikey");
  });

  it("declares secrets, preview and resource references, and names the missing key when a resource needs one", async () => {
    expect(await own.configure({})).toEqual({ acceptSecrets: true, supportsPreview: true, acceptResources: true });
    expect(await own.version()).toMatch(/^\d+\.\d+\.\d+/);
    const inputs = await own.check(SCOPE, {}, scopeInputs());
    const error = await own.create(SCOPE, inputs.inputs).catch((e: unknown) => e);
    expect((error as Error).message).toContain("audience:apiKey");
  });

  it("reports bad provider inputs from CheckConfig by key, keeping the API key secret", async () => {
    const checked = await plugin.checkConfig({ apiKey: secret("k"), baseUrl: "not a url" });
    expect(checked.failures).toEqual([{ property: "baseUrl", reason: expect.stringContaining("audience:baseUrl") }]);
    expect(isSecret(checked.inputs.apiKey)).toBe(true);
  });

  it("takes maxRetries from CheckConfig as a number or as config text, and names what it allows otherwise", async () => {
    const url = `${emulator.url}/v1`;
    for (const good of [0, 5, "5"]) expect((await own.checkConfig({ apiKey: secret(emulator.apiKey), baseUrl: url, maxRetries: good })).failures).toEqual([]);
    // As the settings read it: "5.0" and true are no whole number of retries there either.
    for (const bad of [-1, 2.5, "many", 51, "5.0", true]) {
      expect((await own.checkConfig({ apiKey: secret(emulator.apiKey), baseUrl: url, maxRetries: bad })).failures)
        .toEqual([{ property: "maxRetries", reason: "audience:maxRetries must be a whole number from 0 to 50 (10 when unset)" }]);
    }
  });

  it("reports from CheckConfig the default account's credentials that neither the inputs nor the environment give", async () => {
    const url = `${emulator.url}/v1`;
    const bare = await own.checkConfig({ baseUrl: url });
    expect(bare.failures).toEqual([{ property: "apiKey", reason: expect.stringContaining("audience:apiKey is missing") }]);
    expect((await own.checkConfig({ accounts: { north: { apiKey: emulator.apiKey, baseUrl: url } } })).failures).toEqual([]);
    const fromEnv = await Plugin.start({ AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: url });
    try {
      expect((await fromEnv.checkConfig({})).failures).toEqual([]);
    } finally {
      await fromEnv.close();
    }
  });

  it("reports from CheckConfig, naming the member, an account the service does not answer as the service would", async () => {
    const url = `${emulator.url}/v1`;
    expect((await own.checkConfig({ apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v2` })).failures).toEqual([
      { property: "baseUrl", reason: expect.stringMatching(/\/v2\/v1 is not the service: GET \/accounts\/current answered 404 NOT_FOUND/) },
    ]);
    expect((await own.checkConfig({ accounts: { north: { apiKey: "not-a-key", baseUrl: url } } })).failures).toEqual([
      // A nested path crosses as the provider's failure (Pulumi would print it beside `value {<nil>}`), named in the reason.
      { property: "", reason: expect.stringMatching(/^audience:accounts\.north\.apiKey: the service at .* refused the key/) },
    ]);
  });

  it("leaves to later, in CheckConfig, the members not known yet", async () => {
    expect((await own.checkConfig({ apiKey: UNKNOWN, baseUrl: UNKNOWN })).failures).toEqual([]);
  });
});

describe("lookups", () => {
  it("answers audience:index:getCohort by name", async () => {
    expect(await plugin.invoke("audience:index:getCohort", { name: "Leads" })).toMatchObject({ id: cohortId, name: "Leads" });
  });

  it("fails an unknown function naming the ones there are", async () => {
    const error = await plugin.invoke("audience:index:getNothing", { name: "x" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/unknown function "audience:index:getNothing".*audience:index:getCohort/);
  });
});
