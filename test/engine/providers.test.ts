// Which provider serves a type, and how the default plugin is configured from stack config.
import { describe, expect, it } from "vitest";
import type { PluginHost } from "../../provider/engine/plugin-host.ts";
import { isDefaultProvider, pluginVariables, ProviderHosts, providerTypeOf } from "../../provider/engine/providers.ts";

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

describe("a plugin started early", () => {
  /** Provider hosts whose plugin starts are counted, and the configurations each started plugin got. */
  function counted() {
    const configured: unknown[][] = [];
    const hosts = new ProviderHosts({
      pluginPackage: "audience",
      plugin: async () => {
        const got: unknown[] = [];
        configured.push(got);
        return { configure: async (config: unknown) => void got.push(config) } as unknown as PluginHost;
      },
      dynamic: () => Promise.reject(new Error("no dynamic host here")),
      stackConfig: { "audience:apiKey": "key" },
      providerInputs: () => undefined,
    });
    return { hosts, configured };
  }

  it("starts once when the state holds the package's resources, and the default provider then takes it", async () => {
    const { hosts, configured } = counted();
    hosts.startEarlyFor([{ type: "pulumi:pulumi:Stack" }, { type: "audience:index:Cohort" }]);
    hosts.startEarlyFor([{ type: "audience:index:Scope" }]);
    expect(configured).toHaveLength(1);
    await hosts.plugin();
    expect(configured).toEqual([[{ variables: { "audience:config:apiKey": "key" } }]]);
  });

  it("starts nothing when no resource of the state is the plugin's", async () => {
    const { hosts, configured } = counted();
    hosts.startEarlyFor([{ type: "pulumi:pulumi:Stack" }, { type: "pulumi-nodejs:dynamic:Resource" }]);
    hosts.startEarlyFor([]);
    expect(configured).toHaveLength(0);
    await hosts.plugin();
    expect(configured).toHaveLength(1);
  });
});
