// The notes program (fixtures/notes/index.ts) for the in-process runtime: the same resources, options, dependencies
// and outputs, registered as @pulumi/pulumi registers them; its provider (fixtures/notes/provider.ts) is served in
// the engine's process where the dynamic-provider host would serve it.
import { join } from "node:path";
import { InProcessProvider, type DynamicCalls } from "../../provider/engine/in-process-provider.ts";
import { runProgram, type RunOptions, type RunResult } from "../../provider/engine/index.ts";
import { UNKNOWN, makeSecret, type Value } from "../../provider/protocol/values.ts";
import { noteProvider } from "./fixtures/notes/provider.ts";
import { inProcessRuntime, type ProgramContext, type Registered, type ResourceOptions } from "./in-process-runtime.ts";

export const NOTES_PROJECT = join(import.meta.dirname, "fixtures", "notes");
const NOTE_TYPE = "pulumi-nodejs:dynamic/notes:Note";
/** What stands in `__provider` for the serialized provider: anything but this package's shim goes to the host. */
const NOTE_PROVIDER = "notes provider, served in process";

function note(ctx: ProgramContext, name: string, args: { text: Value | undefined; slot?: string }, opts?: ResourceOptions): Promise<Registered> {
  const dir = ctx.env["NOTES_DIR"];
  if (!dir) throw new Error("NOTES_DIR is not set");
  return ctx.monitor.registerResource(NOTE_TYPE, name, true, { __provider: NOTE_PROVIDER, dir, name, ...args }, opts);
}

/** A value made from an output, unknown while the output is (as `pulumi.interpolate` makes it in a preview). */
function interpolated(value: Value | undefined, make: (v: Value | undefined) => Value): Value {
  return value === UNKNOWN ? UNKNOWN : make(value);
}

/** The notes program: which resources exist, and how, is driven by config so one program covers every case. */
export async function notesProgram(ctx: ProgramContext): Promise<Record<string, Value | undefined>> {
  const { config, monitor } = ctx;
  const one = note(ctx, "one", { text: config.get("greeting") ?? "hi", slot: config.get("slot") ?? "a" }, {
    deleteBeforeReplace: config.flag("deleteBeforeReplace"),
    ignoreChanges: config.flag("ignoreText") ? ["text"] : [],
  });
  const two = config.flag("dropTwo") ? undefined : one.then((o) => note(ctx, "two", { text: interpolated(o.outputs["text"], (text) => `after ${String(text)}`) }, {
    dependsOn: [o.urn], propertyDependencies: { text: [o.urn] }, protect: config.flag("protectTwo"), retainOnDelete: config.flag("retainTwo"),
  }));
  const shelf = monitor.registerResource("notes:index:Shelf", "shelf", false, {}).then(async (s) => {
    const inner = await note(ctx, "shelf-inner", { text: "inside" }, { parent: s.urn });
    await monitor.registerResourceOutputs(s.urn, { innerPath: inner.outputs["path"] });
    return inner;
  });
  const renamed = config.flag("renameVault");
  const vault = note(ctx, renamed ? "strongbox" : "vault", { text: config.getSecret("token") ?? makeSecret("not-set") }, {
    additionalSecretOutputs: ["path"],
    aliases: renamed ? [`urn:pulumi:${ctx.stack}::notes::${NOTE_TYPE}::vault`] : [],
  });
  const broken = config.flag("broken") ? note(ctx, "broken", { text: 42 }) : undefined;
  if (config.flag("throw")) throw new Error("the notes program failed on purpose");
  const extras = Array.from({ length: Number(config.get("extra") ?? "0") }, (_, i) => note(ctx, `extra-${i}`, { text: `extra ${i}` }));
  const copy = config.flag("readOne")
    ? one.then((o) => monitor.readResource(NOTE_TYPE, "one-copy", o.id, { __provider: NOTE_PROVIDER, dir: ctx.env["NOTES_DIR"], name: "one-copy", text: "" }))
    : undefined;
  const reference = config.get("readStack");
  const referenced = reference
    ? Promise.all([
      monitor.readResource("pulumi:pulumi:StackReference", reference, reference, { name: reference }),
      monitor.readResource("pulumi:pulumi:StackReference", `${reference}-again`, reference, { name: reference }),
    ])
    : undefined;
  const [o, t, inner, v, c, refs] = await Promise.all([one, two, shelf, vault, copy, referenced, broken, ...extras]);
  const outputsOf = (r: { outputs: Record<string, Value> } | undefined, key: string): Value | undefined => (r?.outputs["outputs"] as Record<string, Value> | undefined)?.[key];
  return {
    copyText: c ? c.outputs["text"] : "not read",
    onePath: o.outputs["path"],
    twoText: t ? t.outputs["text"] : "no two",
    innerPath: inner.outputs["path"],
    vaultText: v.outputs["text"],
    vaultPath: v.outputs["path"],
    vaultHeld: { text: v.outputs["text"] ?? null, slot: "kept" },
    stackName: ctx.stack,
    referencedOnePath: refs ? outputsOf(refs[0], "onePath") : "no reference",
    referencedVault: refs ? outputsOf(refs[1], "vaultText") : "no reference",
  };
}

/** Runs the notes program in process, its provider with it: no program and no provider host is spawned. */
export function runNotes(options: Omit<RunOptions, "cwd" | "runtime" | "dynamicHost">): Promise<RunResult> {
  const notes = new InProcessProvider({ provider: noteProvider as DynamicCalls });
  return runProgram({ ...options, cwd: NOTES_PROJECT, runtime: inProcessRuntime(notesProgram), dynamicHost: async () => notes });
}
