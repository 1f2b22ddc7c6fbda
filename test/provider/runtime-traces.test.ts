// The program preload and the package's entry points keep the Pulumi runtime's traces of each resource call in the
// program, in the runtime of the language runtime's run entry, unless AUDIENCE_RUNTIME_TRACES asks for them; other
// debug messages go as before, and with another main script nothing of the runtime is loaded. The answers those traces
// would write out are not written out either.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect, it } from "vitest";

const BIN = join(import.meta.dirname, "..", "..", "bin");
const RUN_ENTRY = createRequire(join(process.cwd(), "noop.js")).resolve("@pulumi/pulumi/cmd/run/index.js");
const RUNTIME = join(RUN_ENTRY, "..", "..", "..");

const URN = "urn:pulumi:dev::p::audience:index:Cohort::leads";
/** The answer's text as google-protobuf writes it: its fields, the URN first. */
const WHOLE = expect.stringMatching(new RegExp(`^${URN},`));

/** In a fresh process, patches for `main`, then logs `messages` at debug level without an engine (the runtime then
 * prints each one it is given): whether the patch loaded the runtime, the messages printed, and the text of an answer
 * to a registration. */
function debugged(main: string, messages: string[], env: NodeJS.ProcessEnv = {}): { loaded: boolean; printed: string[]; answer: string } {
  const log = join(RUNTIME, "log", "index.js");
  const code = `
    require(${JSON.stringify(join(BIN, "runtime-traces.cjs"))}).skipRuntimeTraces(${JSON.stringify(main)});
    const loaded = ${JSON.stringify(log)} in require.cache;
    require(${JSON.stringify(join(RUNTIME, "runtime", "settings.js"))}).excessiveDebugOutput = true;
    for (const message of ${JSON.stringify(messages)}) require(${JSON.stringify(log)}).debug(message);
    const answer = new (require(${JSON.stringify(join(RUNTIME, "proto", "resource_pb.js"))}).RegisterResourceResponse)();
    answer.setUrn(${JSON.stringify(URN)});
    console.log(JSON.stringify({ loaded, answer: \`\${answer}\` }));
  `;
  const { AUDIENCE_RUNTIME_TRACES: _, ...rest } = process.env;
  const run = spawnSync(process.execPath, ["-e", code], { encoding: "utf8", env: { ...rest, ...env } });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  const { loaded, answer } = JSON.parse(lines.at(-1)!) as { loaded: boolean; answer: string };
  return { loaded, answer, printed: lines.slice(0, -1).map((line) => line.replace(/^debug: \[runtime\] /, "")) };
}

const TRACES = [
  "Registering resource: t=audience:index:Cohort, name=leads, custom=true, remote=false",
  "RegisterResource RPC prepared: t=audience:index:Cohort, name=leads",
  "RegisterResource RPC finished: resource:leads[audience:index:Cohort]; err: null, resp: urn,id",
  "Invoke RPC finished: tok=audience:index:getCohort; err: null, resp: ",
];
const OTHERS = ["the program's own debug line", "RegisterResource RPC failed: t=audience:index:Cohort, name=leads, err=Error: no"];

it("keeps the runtime's traces of resource calls in the program, and sends the rest", () => {
  expect(debugged(RUN_ENTRY, [...TRACES, ...OTHERS])).toEqual({ loaded: true, printed: OTHERS, answer: "RegisterResourceResponse" });
});

it("sends the traces too when AUDIENCE_RUNTIME_TRACES asks for them", () => {
  expect(debugged(RUN_ENTRY, [...TRACES, ...OTHERS], { AUDIENCE_RUNTIME_TRACES: "1" })).toEqual({ loaded: false, printed: [...TRACES, ...OTHERS], answer: WHOLE });
});

it("leaves the runtime alone under another main script", () => {
  expect(debugged(join(process.cwd(), "index.js"), TRACES)).toEqual({ loaded: false, printed: TRACES, answer: WHOLE });
});
