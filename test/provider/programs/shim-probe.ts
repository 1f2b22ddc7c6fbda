// A program under Pulumi's mock monitor that declares resources of several families and prints what the engine
// would receive for each: type token, `__provider`, which inputs are secret, additionalSecretOutputs and the whole
// serialized request. Run with plain Node, as a program runs.
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";

const require = createRequire(import.meta.url);
const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks.js") as { MockMonitor: new (mocks: pulumi.runtime.Mocks) => { registerResource(req: unknown, callback: unknown): Promise<void> } };
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

interface Registration { type: string; name: string; provider: string; secretInputs: string[]; secretOutputs: string[]; request: string }
const seen: Registration[] = [];

class RecordingMonitor extends MockMonitor {
  override async registerResource(req: { getType(): string; getName(): string; getObject(): { toJavaScript(): Record<string, unknown> }; getAdditionalsecretoutputsList(): string[] }, callback: unknown) {
    const object = req.getObject().toJavaScript();
    seen.push({
      type: req.getType(),
      name: req.getName(),
      provider: String(object.__provider),
      secretInputs: Object.keys(object).filter((k) => JSON.stringify(object[k]).includes(SECRET_SIG)),
      secretOutputs: req.getAdditionalsecretoutputsList(),
      request: JSON.stringify(object),
    });
    return super.registerResource(req, callback);
  }
}

pulumi.runtime.setMockOptions(new RecordingMonitor({
  newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
  call: (args) => args.inputs,
}), "probe", "dev", false);
// The features `setMocks` turns on for its own monitor (secrets above all).
const store = (require("@pulumi/pulumi/runtime/state.js") as { getStore(): Record<string, unknown> }).getStore();
Object.assign(store, { supportsSecrets: true, supportsResourceReferences: true, supportsAliasSpecs: true, supportsDeletedWith: true });

const audience = await import("pulumi-audience");
const cohortId = "11111111-1111-4111-8111-111111111111";
const scope = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [cohortId] }, payload: { cohortIds: [cohortId] }, preview: true });
new audience.Target("csv", { name: "CSV", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } });
new audience.Connection("warehouse", { name: "Warehouse", options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } });
new audience.Cohort("other-account", { name: "Elsewhere", account: "second" });

await new Promise((resolve) => setTimeout(resolve, 1500));
process.stdout.write(JSON.stringify(seen));
