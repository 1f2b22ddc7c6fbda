// The step executor alone, over a stand-in snapshot: what a step that changes nothing writes.
import { describe, expect, it } from "vitest";
import type { Snapshot } from "../../provider/engine/snapshot.ts";
import type { ResourceState } from "../../provider/engine/state-file.ts";
import { StepExecutor } from "../../provider/engine/step-executor.ts";

const OLD: ResourceState = {
  urn: "urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::a", custom: true, type: "pulumi-nodejs:dynamic/notes:Note", id: "a-id",
  inputs: { text: "hello", tags: ["x"] }, outputs: { text: "hello", tags: ["x"], length: 5 }, dependencies: [],
};

function executor() {
  const written: ResourceState[] = [];
  const snapshot = { upsert: async (resource: ResourceState) => void written.push(resource) } as unknown as Snapshot;
  return { written, executor: new StepExecutor({ snapshot, provider: () => Promise.reject(new Error("no provider call expected")) }) };
}

describe("a step that changes nothing", () => {
  it("writes nothing when the state is the same as the file would hold it, members left undefined included", async () => {
    const { written, executor: steps } = executor();
    const same = { ...OLD, outputs: { length: 5, tags: ["x"], text: "hello" }, protect: undefined, parent: undefined };
    expect(await steps.execute({ op: "same", urn: OLD.urn, old: OLD, new: same })).toBe(same);
    expect(written).toEqual([]);
  });

  it("records what did change though nothing was asked of the provider (a new dependency)", async () => {
    const { written, executor: steps } = executor();
    const moved = { ...OLD, dependencies: ["urn:pulumi:dev::notes::pulumi-nodejs:dynamic/notes:Note::b"] };
    await steps.execute({ op: "same", urn: OLD.urn, old: OLD, new: moved });
    expect(written).toEqual([moved]);
  });
});
