// What the classes of both faces record of where a program's credentials came from (the input the credentials rule
// reads, since every credential reaches the analyzer secret), as the Pulumi runtime registers it.
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";

const registered = new Map<string, Record<string, unknown>>();

async function faces() {
  vi.resetModules();
  registered.clear();
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.set(args.name, args.inputs as Record<string, unknown>);
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: (args) => args.inputs,
  }, "policy", "dev", true);
  return { dynamic: await import("../../provider/runtime/generated/dynamic-face.ts"), native: await import("../../provider/native/generated/native-face.ts") };
}

afterEach(() => vi.resetModules());

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const postgres = { type: "postgres" as const, host: "db", port: 5432, database: "d", schema: "s", user: "u" };

describe.each(["dynamic", "native"] as const)("the %s face", (face) => {
  it("records a credential written in the program as plain, and one from a secret as secret", async () => {
    const audience = (await faces())[face];
    new audience.Connection("literal", { name: "A", options: { ...postgres, password: "hunter2" } });
    new audience.Connection("secret", { name: "B", options: { ...postgres, password: pulumi.secret("hunter2") } });
    new audience.Connection("wholly-secret", { name: "C", options: pulumi.secret({ ...postgres, password: "hunter2" }) });
    new audience.Connection("plain-output", { name: "D", options: pulumi.output({ ...postgres, password: "hunter2" }) });
    await settle();
    expect(registered.get("literal")?.["credentialSources"]).toEqual({ "options.password": "plain" });
    expect(registered.get("secret")?.["credentialSources"]).toEqual({ "options.password": "secret" });
    // A secret Output holds every credential it may hold secret; a plain one, once known, the credentials it holds.
    const every = (source: string) => ({ "options.password": source, "options.privateKey": source, "options.token": source, "options.clientSecret": source });
    expect(registered.get("wholly-secret")?.["credentialSources"]).toEqual(every("secret"));
    expect(registered.get("plain-output")?.["credentialSources"]).toEqual({ "options.password": "plain" });
  });

  it("records each credential given and nothing for a family or resource without one", async () => {
    const audience = (await faces())[face];
    const databricks = { type: "databricks" as const, host: "h", httpPath: "/p", catalog: "c", schema: "s", clientId: "id" };
    new audience.Connection("oauth", { name: "E", options: { ...databricks, token: pulumi.secret("t"), clientSecret: Promise.resolve("cs") } });
    new audience.Connection("hosted", { name: "F", options: { type: "hosted_csv" as const } });
    new audience.Cohort("buyers", { name: "Buyers", streamName: "orders" });
    await settle();
    expect(registered.get("oauth")?.["credentialSources"]).toEqual({ "options.token": "secret", "options.clientSecret": "plain" });
    expect(registered.get("hosted")?.["credentialSources"]).toEqual({});
    expect(registered.get("buyers")).not.toHaveProperty("credentialSources");
  });
});
