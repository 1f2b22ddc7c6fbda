// How a program's mistakes read through the real CLI (test/pulumi/fixtures/program-errors, JavaScript): a lookup
// that cannot run (no API key) or finds nothing stops the program with its own message once, in plain and `--json`
// output, without Pulumi's serializer's prefixes, a stack or a promise; a misspelled literal is refused naming every
// allowed value; an id of another kind, an operator the stream's property cannot take, or an upload's path already
// taken is refused in preview; the import option on a dynamic resource is refused naming `adoptId`; the program's own
// error is printed as plain text. The native face's lookups that find nothing read the same.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PLUGIN_IN_PACKAGE, programFolder, pulumiCli, pulumiStack, type PulumiStack, type Run, skipReason } from "./cli.ts";
import { emulatedService } from "./emulated.ts";

const PROGRAM = join(import.meta.dirname, "fixtures", "program-errors");
const service = emulatedService();
const NO_KEY = "audience:apiKey (or AUDIENCE_API_KEY) is not set or is empty: set it as a secret";

/** The error diagnostics of `pulumi up --json` (one event a line) or `pulumi preview --json` (one document). */
function jsonErrors(stdout: string): string[] {
  const text = stdout.trim();
  if (text.startsWith("{\n")) {
    const { diagnostics = [] } = JSON.parse(text) as { diagnostics?: { message: string; severity: string }[] };
    // The document's messages carry their prefix; the events give it apart.
    return diagnostics.filter((d) => d.severity === "error").map((d) => d.message.replace(/^error: /, ""));
  }
  return text.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { diagnosticEvent?: { message: string; severity: string } })
    .flatMap((e) => (e.diagnosticEvent?.severity === "error" ? [e.diagnosticEvent.message] : []));
}

/** What no message of ours holds: Pulumi's serializer's prefix, a stack frame, an inspected promise. */
function expectNoNoise(text: string): void {
  expect(text).not.toContain("error serializing property");
  expect(text).not.toMatch(/^\s+at /m);
  expect(text).not.toContain("Promise {");
  expect(text).not.toContain("unhandled exception");
  expect(text).not.toContain("PromiseRejectionHandledWarning");
}

/** A run that failed with `message` once in its closing Diagnostics (Pulumi also shows it on the stack's status
 * line), and no noise around it. */
function expectOneError(run: Run, message: string): void {
  expect(run.code, run.output).toBe(1);
  expectNoNoise(run.output);
  const diagnostics = run.output.slice(run.output.indexOf("\nDiagnostics:"), run.output.indexOf("\nResources:"));
  expect(diagnostics.split(message).length - 1, run.output).toBe(1);
}

describe(`a program's mistakes, through pulumi${skipReason()}`, { timeout: 300_000 }, () => {
  let stack: PulumiStack;
  beforeAll(async () => {
    if (!pulumiCli().dir) return;
    stack = await pulumiStack({ program: PROGRAM, env: { AUDIENCE_BASE_URL: service.baseUrl() } });
  });

  it.skipIf(!pulumiCli().dir)("a lookup without a key is one error in its own words, in plain text", async () => {
    expectOneError(await stack.pulumi(["preview"]), NO_KEY);
  });

  it.skipIf(!pulumiCli().dir)("and the same one error under --json, for preview and up", async () => {
    for (const command of [["preview", "--json"], ["up", "--yes", "--skip-preview", "--json"]]) {
      const run = await stack.pulumi(command);
      expect(run.code, run.output).toBe(1);
      expect(jsonErrors(run.stdout), run.output).toEqual([`${NO_KEY}\n`]);
    }
  });

  it.skipIf(!pulumiCli().dir)("lookups of a service where nothing listens fail with one error naming the key", async () => {
    const nowhere = await stack.pulumi(["preview"], { env: { AUDIENCE_BASE_URL: "http://127.0.0.1:9/v1", AUDIENCE_API_KEY: "some-key" } });
    // The account's check (a few retries of a refused connection), not each lookup's request and its whole budget.
    expectOneError(nowhere, "audience:baseUrl (or AUDIENCE_BASE_URL): the service at http://127.0.0.1:9/v1 cannot be reached");
    expect(nowhere.output).not.toMatch(/GET \/(cohorts|forecasts)/);
  });

  it.skipIf(!pulumiCli().dir)("a lookup that finds nothing, asked of the service, is one error in its own words", async () => {
    await stack.config({ "audience:apiKey": await service.createAccount("program-errors-lookup") }, true);
    await stack.config({ cohort: "Nobody" });
    expectOneError(await stack.pulumi(["preview"]), 'getCohort: no cohorts with name "Nobody"; names seen: ');
    await stack.config({ cohort: "Leads" });
  });

  it.skipIf(!pulumiCli().dir)("an id the account holds under another kind fails the preview, naming the member, not the up", async () => {
    await stack.config({ "audience:apiKey": await service.createAccount("program-errors-reference") }, true);
    await stack.config({ forecastAsCohort: "true" });
    const preview = await stack.pulumi(["preview"]);
    expect(preview.code, preview.output).toBe(1);
    expectNoNoise(preview.output);
    expect(preview.output).toMatch(/population\.cohortIds\[0\][^\n]*names a Cohort the account does not have/);
    await stack.config({ forecastAsCohort: "false" });
  });

  it.skipIf(!pulumiCli().dir)("a date operator on a stream's numeric property fails the preview, naming the member", async () => {
    const apiKey = await service.createAccount("program-errors-stream");
    await service.create(apiKey, "streams", { name: "orders", properties: { amount: { type: "double" }, placed: { type: "date" } } });
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.config({ dateOn: "amount" });
    expectOneError(await stack.pulumi(["preview"]), "streamConditions[0]._on_or_after: is only allowed on date properties; amount is of type double");
    await stack.config({ dateOn: "placed" });
    const fine = await stack.pulumi(["preview"]);
    expect(fine.code, fine.output).toBe(0);
    await stack.config({ dateOn: "" });
  });

  it.skipIf(!pulumiCli().dir)("an upload to a path the account already holds fails the preview, not the up", async () => {
    const apiKey = await service.createAccount("program-errors-upload");
    const byHand = await fetch(`${service.baseUrl()}/uploads/stores/claimed.csv`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "text/csv" }, body: "store_id\n2\n" });
    expect(byHand.status).toBe(201);
    await stack.config({ "audience:apiKey": apiKey }, true);
    await stack.config({ upload: "true" });
    expectOneError(await stack.pulumi(["preview"]), "Upload stores/claimed.csv: the account already holds a file at this path");
    await stack.config({ upload: "false" });
  });

  // In JavaScript nothing stops it before the provider's check (TypeScript's message: program-types.test.ts).
  it.skipIf(!pulumiCli().dir)("a misspelled mode is refused naming every allowed one", async () => {
    await stack.config({ "audience:apiKey": await service.createAccount("program-errors") }, true);
    await stack.config({ mode: "identifed" });
    const preview = await stack.pulumi(["preview"]);
    expect(preview.code, preview.output).toBe(1);
    expectNoNoise(preview.output);
    const refusal = /representation\.mode[^\n]*/.exec(preview.output)?.[0];
    expect(refusal, preview.output).toBeDefined();
    // Pulumi prints a failure's property with the input of that name, which a nested path is not.
    expect(preview.output).not.toContain("<nil>");
    for (const mode of ["identified", "hashed", "referenced", "aggregated"]) expect(refusal).toContain(mode);
  });

  // The runtime formats it with Node's colored inspect (half a minute of Node 22 on some stacks) unless the package has
  // it use the plain one (plain-errors.cjs); the colored inspect would color this stack's Node frames.
  it.skipIf(!pulumiCli().dir)("the program's own error is printed as plain text, without color codes", async () => {
    await stack.config({ throw: "true" });
    const preview = await stack.pulumi(["preview"]);
    await stack.config({ throw: "false" });
    expect(preview.code, preview.output).toBe(1);
    expect(preview.output).toMatch(/failed with an unhandled exception:\n\s+Error: the program's own mistake\n\s+at /);
    expect(preview.output).not.toContain("\u001b[");
  });

  it.skipIf(!pulumiCli().dir)("the import option on a dynamic resource is one error naming adoptId, not the host's stack", async () => {
    await stack.config({ mode: "identified", importId: "0680ae96-3c1f-4a52-9d0b-6f1f1d8e2a10" });
    const preview = await stack.pulumi(["preview"]);
    expectOneError(preview, 'Cohort "dimp": the import option does not work on pulumi-audience\'s dynamic resources');
    expect(preview.output).toContain('adoptId: "0680ae96-3c1f-4a52-9d0b-6f1f1d8e2a10"');
    expect(preview.output).not.toContain("code must be a string");
    await stack.config({ importId: "" });
  });
});

/** A YAML program (the native face) whose scope's population holds an id that is not one. */
const NATIVE_PROGRAM = `name: native-errors
runtime: yaml
plugins:
  providers:
    - name: audience
      path: ./node_modules/pulumi-audience
resources:
  pipeline:
    type: audience:Scope
    properties:
      name: Pipeline
      preview: true
      population:
        cohortIds: [not-a-uuid]
      payload:
        cohortIds: [not-a-uuid]
`;

describe(`a native program's mistakes, through pulumi${skipReason()}`, { timeout: 300_000 }, () => {
  it.skipIf(!pulumiCli().dir)("a bad nested value is refused naming its path, never beside '<nil>'", async () => {
    const stack = await pulumiStack({ program: programFolder({ "Pulumi.yaml": NATIVE_PROGRAM }), env: { AUDIENCE_BASE_URL: service.baseUrl() } });
    await stack.config({ "audience:apiKey": await service.createAccount("native-errors") }, true);
    const preview = await stack.pulumi(["preview"]);
    expect(preview.code, preview.output).toBe(1);
    expectNoNoise(preview.output);
    expect(preview.output).toMatch(/population\.cohortIds\[0\]: [^\n]*uuid/);
    expect(preview.output).not.toContain("<nil>");
  });
});

/** A JavaScript program of the native face: a lookup feeding a scope (its Output form) or awaited (its promise form). */
const NATIVE_LOOKUP_PROGRAM = {
  "Pulumi.yaml": "name: native-lookups\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n"
    + PLUGIN_IN_PACKAGE,
  "package.json": JSON.stringify({ type: "module" }),
  "index.js": `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";
const name = new pulumi.Config().require("cohort");
if (new pulumi.Config().getBoolean("awaited")) {
  await audience.getCohort({ name });
} else {
  const leads = audience.getCohortOutput({ name });
  new audience.Scope("pipeline", { name: "Pipeline", preview: true, population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] } });
}
`,
};

describe(`a native Node program's failed lookup, through pulumi${skipReason()}`, { timeout: 300_000 }, () => {
  it.skipIf(!pulumiCli().dir)("is one error in the provider's words, fed to a resource or awaited, and the right name passes", async () => {
    const stack = await pulumiStack({ program: programFolder(NATIVE_LOOKUP_PROGRAM), env: { AUDIENCE_BASE_URL: service.baseUrl() } });
    await stack.config({ "audience:apiKey": await service.createAccount("native-lookups") }, true);
    await stack.config({ cohort: "Nobody" });
    for (const awaited of ["false", "true"]) {
      await stack.config({ awaited });
      const preview = await stack.pulumi(["preview"]);
      expectOneError(preview, 'getCohort: no cohorts with name "Nobody"; names seen: ');
      // Not the runtime's words for the RPC that failed.
      expect(preview.output).not.toContain("invocation of");
    }
    await stack.config({ cohort: "Leads" });
    const fine = await stack.pulumi(["preview"]);
    expect(fine.code, fine.output).toBe(0);
  });
});

describe(`a program naming the preload in Pulumi.yaml, through pulumi${skipReason()}`, { timeout: 300_000 }, () => {
  // Without it, source-map-support points the runtime's frames at files that do not exist, and Node's colored inspect
  // of such a frame takes half a minute (known-problems.md); the language host passes `nodeargs` to the program.
  it.skipIf(!pulumiCli().dir)("gets it from nodeargs: an error thrown before any import shows the runtime's frames as they are", async () => {
    const stack = await pulumiStack({
      program: programFolder({
        "Pulumi.yaml": "name: preloaded\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n    nodeargs: --require=pulumi-audience/require-node\nmain: index.js\n",
        "package.json": JSON.stringify({ type: "module" }),
        "index.js": 'throw new Error("the program\'s own mistake");\n',
      }),
    });
    const preview = await stack.pulumi(["preview"]);
    expect(preview.code, preview.output).toBe(1);
    expect(preview.output).toContain("Error: the program's own mistake");
    expect(preview.output).toMatch(/node_modules\/@pulumi\/pulumi\/cmd\/run\/run\.js/);
    expect(preview.output).not.toMatch(/node_modules\/@pulumi\/cmd\/run\/run\.ts/);
  });
});
