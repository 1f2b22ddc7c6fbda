// A resource moved to another account through the real `pulumi` CLI: a native resource given another account's
// provider, and a dynamic one naming another entry of `audience:accounts`, are replaced (created there, deleted
// from the first), and the stack then agrees with both accounts.
import { describe, expect, it } from "vitest";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, skipReason } from "./cli.ts";
import { emulatedService, idsHidden } from "./emulated.ts";

const cli = pulumiCli();
const { baseUrl, createAccount, list, takeWrites } = emulatedService();

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
import * as dynamic from "pulumi-audience";

const config = new pulumi.Config();
const baseUrl = config.require("baseUrl");
const providers = {
  north: new audience.Provider("north", { apiKey: config.requireSecret("northKey"), baseUrl }),
  south: new audience.Provider("south", { apiKey: config.requireSecret("southKey"), baseUrl }),
};
const at = config.require("at") as keyof typeof providers;
new audience.Cohort("native", { name: "Native mover" }, { provider: providers[at] });
new dynamic.Cohort("dynamic", { name: "Dynamic mover", account: at });
`;

describe(`a resource moved to another account, through pulumi${skipReason()}`, { timeout: 600_000 }, () => {
  if (!cli.dir) return;
  let stack: PulumiStack;
  const keys = { north: "", south: "" };
  const names = async (account: keyof typeof keys) => (await list(keys[account], "cohorts")).map((c) => c.name).filter((n) => n.endsWith("mover")).sort();

  it("is created in the account the program names", async () => {
    keys.north = await createAccount("north");
    keys.south = await createAccount("south");
    const program = programFolder({
      "Pulumi.yaml": `name: accounts\nruntime: nodejs\nmain: index.ts\n${PLUGIN_IN_PACKAGE}`,
      "index.ts": PROGRAM,
    });
    stack = await pulumiStack({ program });
    await stack.config({ northKey: keys.north, southKey: keys.south }, true);
    await stack.config({ "audience:accounts": JSON.stringify({ north: { apiKey: keys.north, baseUrl: baseUrl() }, south: { apiKey: keys.south, baseUrl: baseUrl() } }) }, true);
    await stack.config({ baseUrl: baseUrl(), at: "north" });
    await stack.must(["up", "--yes"]);
    expect(await names("north")).toEqual(["Dynamic mover", "Native mover"]);
  });

  it("is replaced when the program names another account: the plan says so, and each account holds what the state says", async () => {
    await stack.config({ at: "south" });
    const preview = await stack.must(["preview", "--diff"]);
    expect(preview.output).toMatch(/\+-\s*audience:index:Cohort: \(replace\)/);
    expect(preview.output).toMatch(/\+-\s*pulumi-nodejs:dynamic\/audience:Cohort: \(replace\)/);
    await takeWrites();
    await stack.must(["up", "--yes", "--skip-preview"]);
    expect(idsHidden(await takeWrites()).sort()).toEqual(["DELETE /cohorts/<id>", "DELETE /cohorts/<id>", "POST /cohorts", "POST /cohorts"]);
    expect(await names("south")).toEqual(["Dynamic mover", "Native mover"]);
    expect(await names("north")).toEqual([]);
    await stack.must(["preview", "--expect-no-changes"]);
    await stack.must(["refresh", "--preview-only", "--expect-no-changes"]);
  });
});
