// Which provider serves a type, and how the default plugin is configured from stack config.
import { describe, expect, it } from "vitest";
import { isDefaultProvider, pluginVariables, providerTypeOf } from "../../provider/engine/providers.ts";

describe("provider routing", () => {
  it("serves dynamic types by the dynamic-provider host, audience types by the plugin, and nothing else", () => {
    expect(providerTypeOf("pulumi-nodejs:dynamic/audience:Scope", "audience")).toBe("pulumi:providers:pulumi-nodejs");
    expect(providerTypeOf("audience:index:Scope", "audience")).toBe("pulumi:providers:audience");
    expect(providerTypeOf("audience:index:getCohort", "audience")).toBe("pulumi:providers:audience");
    expect(providerTypeOf("aws:s3/bucket:Bucket", "audience")).toBeUndefined();
  });

  it("tells the providers the engine registers itself from those a program declares", () => {
    expect(isDefaultProvider({ urn: "urn:pulumi:dev::p::pulumi:providers:audience::default", type: "pulumi:providers:audience" })).toBe(true);
    expect(isDefaultProvider({ urn: "urn:pulumi:dev::p::pulumi:providers:audience::north", type: "pulumi:providers:audience" })).toBe(false);
  });

  it("configures the default plugin from the audience: stack config, as audience:config: variables", () => {
    const variables = pluginVariables("audience", { "audience:apiKey": "key", "audience:accounts": { north: { apiKey: "n" } }, "project:enabled": "true" });
    expect(variables).toEqual({ "audience:config:apiKey": "key", "audience:config:accounts": '{"north":{"apiKey":"n"}}' });
  });
});
