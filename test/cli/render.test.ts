// Progress lines as a person reads them off a terminal: a line when a step starts and one when it ends, no escape codes.
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import type { StepEvent } from "../../provider/engine/index.ts";
import { createRenderer } from "../../provider/cli/render.ts";

/** What the events print; a preview's lines come at its end, so a preview is summed up first. */
function rendered(events: StepEvent[], preview = false): string {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString()));
  const renderer = createRenderer({ out, err: out, tty: false });
  for (const e of events) renderer.event(e);
  if (preview) {
    expect(chunks).toEqual([]);
    renderer.summary({ operation: "preview", project: "shop", stack: "dev", ok: true, changes: { adopt: 1 }, failed: 0, skipped: 0, steps: [], outputs: {}, secretOutputs: [], shownOutputs: {}, diagnostics: [], durationMs: 5, statePath: "" });
    return chunks.join("").split("\n\nPlan (")[0]! + "\n";
  }
  return chunks.join("");
}

const adopt = { kind: "step", op: "adopt", urn: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/audience:Scope::pipeline", type: "pulumi-nodejs:dynamic/audience:Scope", name: "pipeline", keys: [], detail: "id 4f2a" } satisfies Partial<StepEvent>;

it("an adopted resource reads as imported (as Pulumi says it), with the id taken over, not as created", () => {
  expect(rendered([{ ...adopt, phase: "start", planned: false }, { ...adopt, phase: "done", planned: false, ms: 1200 }])).toBe("=  imported   audience:Scope  pipeline (id 4f2a) 1.2s\n");
  expect(rendered([{ ...adopt, phase: "done", planned: true, ms: 3 }], true)).toBe("=  import     audience:Scope  pipeline (id 4f2a)\n");
});

it("off a terminal, a step that is running has a line as soon as it starts, and another when it ends", async () => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c: Buffer) => chunks.push(c.toString()));
  const renderer = createRenderer({ out, err: out, tty: false, env: {} });
  renderer.event({ ...adopt, phase: "start", planned: false });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(chunks.join("")).toBe("=  importing  audience:Scope  pipeline (id 4f2a)\n");
  renderer.event({ ...adopt, phase: "done", planned: false, ms: 1200 });
  expect(chunks.join("")).toBe("=  importing  audience:Scope  pipeline (id 4f2a)\n=  imported   audience:Scope  pipeline (id 4f2a) 1.2s\n");
});

it("a long text changed in its middle is shown around the change, on both sides", () => {
  const head = "store_id,store_name,lat,lon\ns-001,Main Street,40.7128,-74.0060\n";
  const update = { kind: "step", op: "update", urn: "urn:pulumi:dev::shop::pulumi-nodejs:dynamic/audience:Upload::stores", type: "pulumi-nodejs:dynamic/audience:Upload", name: "stores", keys: ["content"] } satisfies Partial<StepEvent>;
  const changes = [{ path: "content", old: `${head}s-002,Harbour Point,40.70,-74.01\n`, new: `${head}s-002,Harbour Pt,40.70,-74.01\n` }];
  const [, line] = rendered([{ ...update, phase: "done", planned: true, ms: 1, changes }], true).split("\n");
  expect(line).toContain("Harbour Point");
  expect(line).toContain("Harbour Pt,");
});
