// The TypeScript face of native mode, under Pulumi's mock monitor: what a program registers and invokes.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../provider/plugin/manifest.ts";
import { runNode } from "../provider/harness.ts";

interface Registered {
  type: string; name: string; version: string; provider: string; aliases: (string | { type: string })[];
  secretInputs: string[]; secretOutputs: string[]; inputs: string[];
}

let seen: {
  registered: Registered[]; invoked: { token: string; version: string; provider: string }[]; leads: { id: string; streamConditions: unknown };
  conditions: { registered: unknown; recorded: unknown };
};

beforeAll(async () => {
  seen = JSON.parse(await runNode(fileURLToPath(new URL("./programs/native-probe.ts", import.meta.url)))) as typeof seen;
}, 60_000);

const named = (name: string) => {
  const found = seen.registered.find((r) => r.name === name);
  if (!found) throw new Error(`${name} not registered; registered: ${seen.registered.map((r) => r.name).join(", ")}`);
  return found;
};

describe("native resources", () => {
  it("register the audience:index tokens at the plugin's version, without the dynamic provider's inputs", () => {
    expect(named("pipeline")).toMatchObject({ type: "audience:index:Scope", version: VERSION });
    expect(named("csv").type).toBe("audience:index:Target");
    for (const resource of seen.registered) {
      expect(resource.inputs).not.toContain("__provider");
      expect(resource.inputs).not.toContain("__kind");
    }
  });

  it("alias the dynamic type, so a stack made with the dynamic classes moves over without replacement", () => {
    // Without a parent, as the URN the spec names; under a parent, as the spec (its URN needs the parent's).
    expect(named("pipeline").aliases).toEqual(["urn:pulumi:dev::probe::pulumi-nodejs:dynamic/audience:Scope::pipeline"]);
    expect(named("warehouse").aliases).toEqual(["urn:pulumi:dev::probe::pulumi-nodejs:dynamic/audience:Connection::warehouse"]);
    expect(named("csv").aliases).toEqual([{ type: "pulumi-nodejs:dynamic/audience:Target" }]);
  });

  it("keep credentials secret whether or not the program marked them, member by member", () => {
    // The password inside `options` is secret; `options` itself is not named a secret output (its host stays readable).
    expect(named("warehouse")).toMatchObject({ secretInputs: ["options"], secretOutputs: [] });
  });
});

describe("operator members", () => {
  const TYPESCRIPT_CONDITIONS = [{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }];

  it("read as the program names them (`_gte`) from outputs the plugin names `$gte`, registered or recorded", () => {
    expect(seen.conditions.registered).toEqual(TYPESCRIPT_CONDITIONS);
    expect(seen.conditions.recorded).toEqual(TYPESCRIPT_CONDITIONS);
  });

  it("read as the program names them from a lookup's answer", () => {
    expect(seen.leads.streamConditions).toEqual(TYPESCRIPT_CONDITIONS);
  });
});

describe("explicit providers", () => {
  it("register as pulumi:providers:audience with a secret apiKey, and serve the resources and lookups given them", () => {
    expect(named("north")).toMatchObject({ type: "pulumi:providers:audience", version: VERSION, secretInputs: ["apiKey"] });
    expect(named("pipeline").provider).toMatch(/::pulumi:providers:audience::north::north-id$/);
    expect(named("warehouse").provider).toBe("");
    expect(seen.invoked).toEqual([{ token: "audience:index:getCohort", version: VERSION, provider: expect.stringMatching(/::pulumi:providers:audience::north::north-id$/) }]);
    expect(seen.leads).toMatchObject({ id: "22222222-2222-4222-8222-222222222222" });
  });
});
