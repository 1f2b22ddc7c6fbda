// The step generator alone: what a run would do to each resource, decided from the registration, the old state and
// a stand-in provider's check, diff and read. No provider host, no program: the plan a preview shows.
import { describe, expect, it } from "vitest";
import type { Registration } from "../../provider/engine/monitor.ts";
import type { DiffResult } from "../../provider/engine/resource-calls.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import { StepGenerator } from "../../provider/engine/step-generator.ts";
import { PlanError } from "../../provider/engine/steps.ts";
import { makeUrn } from "../../provider/engine/urn.ts";
import type { PropertyMap } from "../../provider/protocol/values.ts";

const TYPE = "pulumi-nodejs:dynamic/notes:Note";
const PROVIDER_REF = "urn:pulumi:dev::notes::pulumi:providers:pulumi-nodejs::default::0b7e";
const urnOf = (name: string) => makeUrn("dev", "notes", TYPE, name, "");

function registration(name: string, inputs: PropertyMap, options: Partial<Registration> = {}): Registration {
  return {
    type: TYPE,
    name,
    parent: "",
    custom: true,
    inputs,
    dependencies: [],
    propertyDependencies: {},
    provider: "",
    ignoreChanges: [],
    replaceOnChanges: [],
    additionalSecretOutputs: [],
    aliasUrns: [],
    importId: "",
    ...options,
  };
}

function recorded(name: string, inputs: PropertyMap, options: Partial<ResourceState> = {}): ResourceState {
  return { urn: urnOf(name), custom: true, type: TYPE, id: `${name}-id`, inputs, outputs: { ...inputs, length: 5 }, dependencies: [], provider: PROVIDER_REF, ...options };
}

/** A provider that accepts every input and diffs as told, recording each call; it has create and update only to
 * show that planning never calls them. */
function fakeProvider(diff: (olds: PropertyMap, news: PropertyMap) => Partial<DiffResult> = () => ({})) {
  const calls: string[] = [];
  const provider = {
    calls,
    check: async (_urn: string, _olds: PropertyMap, news: PropertyMap) => {
      calls.push("check");
      return { inputs: news, failures: typeof news["text"] === "string" ? [] : [{ property: "text", reason: "must be a string" }] };
    },
    diff: async (_id: string, _urn: string, olds: PropertyMap, news: PropertyMap) => {
      calls.push("diff");
      return { changes: "none" as const, replaces: [], deleteBeforeReplace: false, ...diff(olds, news) };
    },
    read: async (id: string, _urn: string, outputs: PropertyMap) => {
      calls.push("read");
      return { id, outputs: { ...outputs, text: "changed by hand" }, inputs: { text: "changed by hand" } };
    },
    create: async () => {
      calls.push("create");
      return { id: "x", outputs: {} };
    },
    update: async () => {
      calls.push("update");
      return {};
    },
  };
  return provider;
}

function generator(provider: ReturnType<typeof fakeProvider>) {
  return new StepGenerator({
    provider: async () => provider,
    defaultProvider: async () => PROVIDER_REF,
    stackOutputs: async () => ({}),
    adoptedId: (inputs) => (typeof inputs["adoptId"] === "string" ? inputs["adoptId"] : undefined),
  });
}

describe("the step generator", () => {
  it("plans a create for a registration the stack does not hold, outputs taken from the inputs", async () => {
    const provider = fakeProvider();
    const step = await generator(provider).register(urnOf("one"), registration("one", { text: "hi" }, { protect: true }), undefined);
    expect(step).toMatchObject({ op: "create", urn: urnOf("one"), new: { inputs: { text: "hi" }, outputs: { text: "hi" }, provider: PROVIDER_REF, protect: true } });
    expect(provider.calls).toEqual(["check"]);
  });

  it("plans an adopt when the inputs name an existing resource to take over", async () => {
    const step = await generator(fakeProvider()).register(urnOf("one"), registration("one", { text: "hi", adoptId: "existing-7" }), undefined);
    expect(step).toMatchObject({ op: "adopt", id: "existing-7", new: { id: "existing-7", inputs: { text: "hi", adoptId: "existing-7" } } });
  });

  it("plans same for unchanged inputs, keeping the recorded outputs, and calls no create or update", async () => {
    const provider = fakeProvider();
    const old = recorded("one", { text: "hi" });
    const step = await generator(provider).register(old.urn, registration("one", { text: "hi" }), old);
    expect(step).toMatchObject({ op: "same", old, new: { id: "one-id", outputs: old.outputs } });
    expect(provider.calls).toEqual(["check", "diff"]);
  });

  it("plans an update naming the changed inputs by their paths, old and new values both kept", async () => {
    const old = recorded("one", { text: "hi", options: { host: "a", port: 1 } });
    const step = await generator(fakeProvider(() => ({ changes: "some" }))).register(old.urn, registration("one", { text: "hi", options: { host: "b", port: 1 } }), old);
    expect(step).toMatchObject({ op: "update", keys: ["options.host"], old: { inputs: { options: { host: "a" } } }, new: { id: "one-id", inputs: { options: { host: "b" } } } });
  });

  it("plans a replace when a create-only member changes, that member first", async () => {
    const old = recorded("one", { text: "hi", slot: "a" });
    const diff = (olds: PropertyMap, news: PropertyMap) => ({ changes: "some" as const, replaces: olds["slot"] === news["slot"] ? [] : ["slot"] });
    const step = await generator(fakeProvider(diff)).register(old.urn, registration("one", { text: "bonjour", slot: "b" }), old);
    expect(step).toMatchObject({ op: "replace", replaces: ["slot"], keys: ["slot", "text"], deleteBeforeReplace: false });
    expect(step).not.toHaveProperty("new.id");
  });

  it("a replace forced by one member of an object marks that member, not its neighbours, when the provider tells them apart", async () => {
    const old = recorded("one", { text: "hi", options: { type: "csv" } });
    const news = { text: "hi", connectionId: "c-1", options: { type: "table", tableName: "t" } };
    const detailed = { "options.type": "UPDATE_REPLACE", "options.tableName": "ADD", connectionId: "ADD" };
    for (const answer of [{ detailed }, { forcing: ["options.type"] }]) {
      const step = await generator(fakeProvider(() => ({ changes: "some", replaces: ["options"], ...answer }))).register(old.urn, registration("one", news), old);
      expect(step).toMatchObject({ op: "replace", replaces: ["options.type"] });
    }
    // A provider that names top-level keys only (Pulumi's dynamic-provider host) leaves them as they are.
    const coarse = await generator(fakeProvider(() => ({ changes: "some", replaces: ["options"] }))).register(old.urn, registration("one", news), old);
    expect(coarse).toMatchObject({ op: "replace", replaces: ["options"] });
  });

  it("plans a replace forced by replaceOnChanges, deleting first when asked", async () => {
    const old = recorded("one", { text: "hi" });
    const reg = registration("one", { text: "bonjour" }, { replaceOnChanges: ["text"], deleteBeforeReplace: true });
    const step = await generator(fakeProvider(() => ({ changes: "some" }))).register(old.urn, reg, old);
    expect(step).toMatchObject({ op: "replace", replaces: ["text"], deleteBeforeReplace: true });
  });

  it("refuses to plan the replace of a protected resource, naming the members forcing it", async () => {
    const old = recorded("one", { text: "hi", slot: "a" }, { protect: true });
    const plan = generator(fakeProvider(() => ({ changes: "some", replaces: ["slot"] }))).register(old.urn, registration("one", { text: "hi", slot: "b" }), old);
    await expect(plan).rejects.toMatchObject({ name: "PlanError", op: "replace", keys: ["slot"], message: expect.stringMatching(/is protected/) });
  });

  it("refuses inputs the provider's check fails, naming the property", async () => {
    const plan = generator(fakeProvider()).register(urnOf("broken"), registration("broken", { text: 42 }), undefined);
    await expect(plan).rejects.toBeInstanceOf(PlanError);
    await expect(plan).rejects.toMatchObject({ op: "create", keys: ["text"], message: expect.stringMatching(/"broken": invalid inputs: text: must be a string/) });
  });

  it("plans a delete for a recorded resource the program no longer registers, dependents first", async () => {
    const kept = recorded("kept", { text: "a" });
    const base = recorded("base", { text: "b" });
    const dependent = recorded("dependent", { text: "c" }, { dependencies: [base.urn] });
    const steps = generator(fakeProvider()).undeclared([base, kept, dependent], new Set([kept.urn]));
    expect(steps.map((s) => [s.op, s.urn, s.after])).toEqual([
      ["delete", dependent.urn, []],
      ["delete", base.urn, [dependent.urn]],
    ]);
  });

  it("plans a destroy of every resource but refuses while one is protected", () => {
    const one = recorded("one", { text: "a" });
    expect(generator(fakeProvider()).destroy([one]).map((s) => s.urn)).toEqual([one.urn]);
    expect(() => generator(fakeProvider()).destroy([one, recorded("two", { text: "b" }, { protect: true })])).toThrow(/cannot destroy: 1 protected resource:\n {2}.*::two\n/);
  });

  it("plans a drift for a declared property changed outside the program", async () => {
    const old = recorded("one", { text: "hi" });
    const step = await generator(fakeProvider()).refresh(old);
    expect(step).toMatchObject({ op: "drift", keys: ["text"], old: { inputs: { text: "hi" } }, new: { inputs: { text: "changed by hand" } } });
  });
});
