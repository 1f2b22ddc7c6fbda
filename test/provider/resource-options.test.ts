// Pulumi's resource options the dynamic face's classes see before the dynamic-provider host could: an option the
// host cannot serve (import) is refused at once in the program's words; one the engine cannot apply through the
// host (replaceOnChanges) is handed to the provider.
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";

const ID = "0680ae96-3c1f-4a52-9d0b-6f1f1d8e2a10";

/** What each resource registered, under mocks, with the faces loaded afresh. */
async function underMocks() {
  vi.resetModules();
  const registered: pulumi.runtime.MockResourceArgs[] = [];
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push(args);
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: (args) => args.inputs,
  }, "options", "dev", false);
  const dynamic = await import("../../provider/runtime/generated/dynamic-face.ts");
  const native = await import("../../provider/native/generated/native-face.ts");
  return { dynamic, native, registered };
}

function settled(resource: pulumi.CustomResource): Promise<string> {
  return new Promise((resolve) => resource.urn.apply((urn) => { resolve(urn); return urn; }));
}

afterEach(() => vi.resetModules());

describe("the import option", () => {
  it("is refused by a dynamic resource, naming it and what to write instead, as one message without frames", async () => {
    const { dynamic, registered } = await underMocks();
    let thrown: unknown;
    try {
      new dynamic.Cohort("dimp", { name: "Hand made" }, { import: ID });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(pulumi.RunError);
    const message = (thrown as Error).message;
    expect(message).toMatch(/^Cohort "dimp": the import option does not work on pulumi-audience's dynamic resources/);
    expect(message).toContain(`adoptId: "${ID}"`);
    expect(message).toContain("pulumi-audience/native");
    // Pulumi prints a RunError by its stack when the runtime meets it late: the stack is the message alone.
    expect((thrown as Error).stack).toBe(message);
    expect(registered).toEqual([]);
  });

  it("is still taken by a native resource", async () => {
    const { native, registered } = await underMocks();
    await settled(new native.Cohort("nimp", { name: "Hand made" }, { import: ID }));
    expect(registered.map((r) => r.name)).toEqual(["nimp"]);
  });
});

describe("the replaceOnChanges option", () => {
  it("is recorded by a dynamic resource for the provider's diff, whose host names no path for Pulumi to match", async () => {
    const { dynamic, registered } = await underMocks();
    await settled(new dynamic.Cohort("roc", { name: "Replaced" }, { replaceOnChanges: ["minCount"] }));
    await settled(new dynamic.Cohort("plain", { name: "Updated" }));
    const inputs = Object.fromEntries(registered.map((r) => [r.name, r.inputs as Record<string, unknown>]));
    expect(inputs["roc"]?.["__replaceOnChanges"]).toEqual(["minCount"]);
    expect(inputs["plain"]).not.toHaveProperty("__replaceOnChanges");
  });

  it("is left to Pulumi by a native resource, whose diff names its paths", async () => {
    const { native, registered } = await underMocks();
    await settled(new native.Cohort("roc", { name: "Replaced" }, { replaceOnChanges: ["minCount"] }));
    expect(registered[0]?.inputs).not.toHaveProperty("__replaceOnChanges");
  });
});
