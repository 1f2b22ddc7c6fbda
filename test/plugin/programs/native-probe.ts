// A program under Pulumi's mock monitor that declares native resources, an explicit provider and a lookup, and
// prints what the engine would receive: type tokens, plugin version, aliases, provider references, secrets and
// the function token invoked. Run with plain Node, as a program runs.
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";

const require = createRequire(import.meta.url);
const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks.js") as { MockMonitor: new (mocks: pulumi.runtime.Mocks) => object };
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

interface Alias { getUrn(): string; getSpec(): { getType(): string; getName(): string } | undefined }
interface Request {
  getType(): string; getName(): string; getVersion(): string; getProvider(): string; getCustom(): boolean;
  getObject(): { toJavaScript(): Record<string, unknown> }; getAdditionalsecretoutputsList(): string[]; getAliasesList(): Alias[];
}
const registered: unknown[] = [];
const invoked: unknown[] = [];

class RecordingMonitor extends (MockMonitor as new (mocks: pulumi.runtime.Mocks) => { registerResource(req: Request, cb: unknown): Promise<void>; invoke(req: { getTok(): string; getVersion(): string; getProvider(): string }, cb: unknown): Promise<void> }) {
  override async registerResource(req: Request, callback: unknown) {
    const object = req.getObject().toJavaScript();
    registered.push({
      type: req.getType(),
      name: req.getName(),
      version: req.getVersion(),
      provider: req.getProvider(),
      aliases: req.getAliasesList().map((a) => a.getUrn() || { type: a.getSpec()?.getType() }),
      secretInputs: Object.keys(object).filter((k) => JSON.stringify(object[k]).includes(SECRET_SIG)),
      secretOutputs: req.getAdditionalsecretoutputsList(),
      inputs: Object.keys(object).filter((k) => object[k] !== undefined && object[k] !== null).sort(),
    });
    return super.registerResource(req, callback);
  }

  override async invoke(req: { getTok(): string; getVersion(): string; getProvider(): string }, callback: unknown) {
    // The engine's own functions (`pulumi:pulumi:getResource`, behind outputs read from state) are not lookups.
    if (!req.getTok().startsWith("pulumi:")) invoked.push({ token: req.getTok(), version: req.getVersion(), provider: req.getProvider() });
    return super.invoke(req, callback);
  }
}

// The plugin answers operator members under the schema's names (`$gte`), whatever the program named them.
const SCHEMA_CONDITIONS = [{ property: "amount", $gte: 100 }, { property: "datetime", $onOrAfter: "2024-01-01" }];
pulumi.runtime.setMockOptions(new RecordingMonitor({
  newResource: (args) => ({
    id: `${args.name}-id`,
    state: args.type === "audience:index:Cohort" ? { ...args.inputs, streamConditions: SCHEMA_CONDITIONS } : args.inputs,
  }),
  call: (args) => ({ id: "22222222-2222-4222-8222-222222222222", name: String(args.inputs.name), streamConditions: SCHEMA_CONDITIONS }),
}), "probe", "dev", false);
const store = (require("@pulumi/pulumi/runtime/state.js") as { getStore(): Record<string, unknown> }).getStore();
Object.assign(store, { supportsSecrets: true, supportsResourceReferences: true, supportsAliasSpecs: true, supportsDeletedWith: true });

const audience = await import("pulumi-audience/native");
const north = new audience.Provider("north", { apiKey: "north-key", baseUrl: "https://north.example.com/v1" });
const leads = await audience.getCohort({ name: "Leads" }, { provider: north });
const scope = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true }, { provider: north });
new audience.Target("csv", { name: "CSV", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } }, { provider: north, parent: scope });
new audience.Connection("warehouse", { name: "Warehouse", options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } });

// Outputs as the program reads them: one it registered, one it did not (read from the recorded state).
const conditions: Record<string, unknown> = {};
const spenders = new audience.Cohort("spenders", { name: "Spenders", streamName: "transactions", streamConditions: [{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }] });
spenders.streamConditions.apply((value) => { conditions.registered = value; });
const quiet = new audience.Cohort("quiet", { name: "Quiet", streamName: "transactions" });
quiet.streamConditions.apply((value) => { conditions.recorded = value; });

await new Promise((resolve) => setTimeout(resolve, 1500));
process.stdout.write(JSON.stringify({ registered, invoked, leads, conditions }));
