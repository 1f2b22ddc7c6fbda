// A program under Pulumi's mock monitor that declares native resources, an explicit provider and a lookup, and
// prints what the engine would receive: type tokens, plugin version, aliases, provider references, secrets and
// the function token invoked. Run with plain Node, as a program runs.
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";

const require = createRequire(import.meta.url);
const { MockMonitor } = require("@pulumi/pulumi/runtime/mocks.js") as { MockMonitor: new (mocks: pulumi.runtime.Mocks) => object };
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

interface Alias { getSpec(): { getType(): string; getName(): string } | undefined }
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
      aliases: req.getAliasesList().map((a) => a.getSpec()?.getType()),
      secretInputs: Object.keys(object).filter((k) => JSON.stringify(object[k]).includes(SECRET_SIG)),
      secretOutputs: req.getAdditionalsecretoutputsList(),
      inputs: Object.keys(object).filter((k) => object[k] !== undefined && object[k] !== null).sort(),
    });
    return super.registerResource(req, callback);
  }

  override async invoke(req: { getTok(): string; getVersion(): string; getProvider(): string }, callback: unknown) {
    invoked.push({ token: req.getTok(), version: req.getVersion(), provider: req.getProvider() });
    return super.invoke(req, callback);
  }
}

pulumi.runtime.setMockOptions(new RecordingMonitor({
  newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
  call: (args) => ({ id: "22222222-2222-4222-8222-222222222222", name: String(args.inputs.name) }),
}), "probe", "dev", false);
const store = (require("@pulumi/pulumi/runtime/state.js") as { getStore(): Record<string, unknown> }).getStore();
Object.assign(store, { supportsSecrets: true, supportsResourceReferences: true, supportsAliasSpecs: true, supportsDeletedWith: true });

const audience = await import("pulumi-audience/native");
const north = new audience.Provider("north", { apiKey: "north-key", baseUrl: "https://north.example.com/v1" });
const leads = await audience.getCohort({ name: "Leads" }, { provider: north });
const scope = new audience.Scope("pipeline", { name: "Pipeline", population: { cohortIds: [leads.id] }, payload: { cohortIds: [leads.id] }, preview: true }, { provider: north });
new audience.Target("csv", { name: "CSV", scopeId: scope.id, representation: { mode: "identified" }, options: { type: "hosted_csv" } }, { provider: north });
new audience.Connection("warehouse", { name: "Warehouse", options: { type: "postgres", host: "db", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } });

await new Promise((resolve) => setTimeout(resolve, 1500));
process.stdout.write(JSON.stringify({ registered, invoked, leads }));
