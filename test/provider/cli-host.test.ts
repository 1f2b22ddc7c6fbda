// No silent no-op under the Pulumi CLI: the package installed from `npm pack` into a program at another path, Pulumi's
// dynamic-provider host started as the CLI starts it (installed.ts), and every operation the host serves tried on a
// live resource, under each condition a user may run it in. Each operation either does its work or fails with the
// shim's one paragraph (which module, from which directory, on which Node); none answers without doing it, and a
// live resource is never reported deleted. The shim the previous version recorded, still in states, is held to the
// same. The first version's shim is measured alongside: the host caches it before `configure` loads the provider,
// so once that load fails its calls fall through to the host's defaults (a delete that deletes nothing succeeds).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { inProcessProvider } from "../../provider/cli/extension.ts";
import type { InProcessProvider } from "../../provider/engine/in-process-provider.ts";
import type { PropertyMap } from "../../provider/protocol/values.ts";
import { EARLIER_PROVIDER_MODULES, providerModule } from "../../provider/runtime/resources/shim.ts";
import { CliHost, PINNED_NODE_DIR, program, removeTemporaries, type Program } from "./installed.ts";

const URN = "urn:pulumi:dev::installed-program::pulumi-nodejs:dynamic/audience:Cohort::c";
const OPERATIONS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;
type Operation = (typeof OPERATIONS)[number];
/** works: did its work; loud: failed with the shim's paragraph; unclear: failed with another error; silent: answered without doing its work. */
type Outcome = "works" | "loud" | "unclear" | "silent";

interface Condition {
  name: string;
  path: string;
  nodeOptions?: string;
  installed: boolean;
  /** Whether the operations can work there; else each must fail loudly, with this advice. */
  works: boolean;
  fix?: string;
}

const CONDITIONS: Condition[] = [
  { name: "Node 22 (pinned)", path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, installed: true, works: true },
  { name: "Node 20 (/usr/bin/node)", path: "/usr/bin:/bin", installed: true, works: false, fix: "To fix: put Node >= 22.18 first on PATH" },
  // Node 22.0-22.11 (and 20.0-20.18) cannot require() an ES module; this flag gives a newer Node that behaviour.
  { name: "require(esm) off", path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, nodeOptions: "--no-experimental-require-module", installed: true, works: false, fix: "leave --no-experimental-require-module out of NODE_OPTIONS" },
  { name: "NODE_OPTIONS=--conditions=source", path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, nodeOptions: "--conditions=source", installed: true, works: true },
  { name: "package missing", path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, installed: false, works: false, fix: "To fix: npm install pulumi-audience there" },
];

type Shim = "current" | "previous" | "first";
/** What a program of each version registers beside a cohort's members: the current one names the family by its shim. */
const SHIMS: Record<Shim, PropertyMap> = {
  current: { __provider: providerModule("cohorts") },
  previous: { __kind: "cohorts", __provider: EARLIER_PROVIDER_MODULES.at(-1)! },
  first: { __kind: "cohorts", __provider: EARLIER_PROVIDER_MODULES[0]! },
};

let emulator: RunningEmulator;
let creator: InProcessProvider;
const programs = new Map<boolean, Program>();
const table: { condition: string; shim: Shim; outcomes: Record<Operation, Outcome> }[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  creator = inProcessProvider({ config: config(), env: {} });
  programs.set(true, await program({ installed: true }));
  programs.set(false, await program({ installed: false }));
}, 300_000);

afterAll(async () => {
  if (table.length > 0) {
    const rows = table.map(({ condition, shim, outcomes }) => {
      const count = (o: Outcome) => OPERATIONS.filter((op) => outcomes[op] === o).length;
      return `| ${condition} | ${shim} | ${OPERATIONS.map((op) => outcomes[op]).join(" | ")} | ${count("works")} | ${count("loud")} | ${count("unclear")} | ${count("silent")} |`;
    });
    console.log([`| condition | shim | ${OPERATIONS.join(" | ")} | works | loud | unclear | silent |`, `|${"---|".repeat(OPERATIONS.length + 6)}`, ...rows].join("\n"));
  }
  await emulator?.close();
  removeTemporaries();
});

function config(): Record<string, unknown> {
  return { "audience:apiKey": emulator.apiKey, "audience:baseUrl": `${emulator.url}/v1` };
}

const cohort = (shim: PropertyMap, extra: PropertyMap = {}): PropertyMap => ({ name: "Installed", streamName: "transactions", minCount: 2, deletionMode: "delete", ...shim, ...extra });

async function service(method: string, id: string, body?: unknown): Promise<{ status: number; name?: string }> {
  const response = await fetch(`${emulator.url}/v1/cohorts/${id}`, {
    method,
    headers: { authorization: `Bearer ${emulator.apiKey}`, ...(body ? { "content-type": "application/merge-patch+json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = response.status === 200 ? ((await response.json()) as { name?: string }) : {};
  return { status: response.status, ...(answer.name !== undefined ? { name: answer.name } : {}) };
}

/** A live resource as a state records it, registered with `shim`'s markers. */
async function liveResource(shim: PropertyMap, name: string): Promise<{ id: string; outputs: PropertyMap }> {
  const { inputs } = await creator.check(URN, {}, cohort(shim, { name }));
  return creator.create(URN, inputs);
}

/** The shim's paragraph: the module, the directory, the Node, the cause and the fix. */
function isLoud(error: unknown, dir: string): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return message.includes(`cannot load pulumi-audience/provider from ${dir} on Node v`) && message.includes("To fix:") && message.includes("Nothing was read, changed or deleted");
}

/** The messages of the failures seen, for the assertions. */
const failures: string[] = [];

async function attempt(dir: string, call: () => Promise<boolean>): Promise<Outcome> {
  try {
    return (await call()) ? "works" : "silent";
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
    return isLoud(error, dir) ? "loud" : "unclear";
  }
}

/** Every operation in one host process, in the order an `up`, a `refresh` and a `destroy` reach them. */
async function operations(host: CliHost, shim: PropertyMap, dir: string, label: string): Promise<Record<Operation, Outcome>> {
  const live = await liveResource(shim, `Live ${label}`);
  const outcomes = {} as Record<Operation, Outcome>;
  // The host calls the shim's configure with its first resource call.
  outcomes.configure = await attempt(dir, async () => (await host.check(URN, {}, cohort(shim))).failures.length === 0);
  outcomes.check = await attempt(dir, async () => (await host.check(URN, {}, cohort(shim, { minCount: "two" }))).failures.length > 0);
  outcomes.diff = await attempt(dir, async () => (await host.diff(live.id, URN, live.outputs, cohort(shim, { name: `Renamed ${label}` }), undefined, [])).changes === "some");
  outcomes.create = await attempt(dir, async () => {
    const made = await host.create(URN, cohort(shim, { name: `Made ${label}` }));
    return made.id !== "" && (await service("GET", made.id)).status === 200;
  });
  await service("PATCH", live.id, { name: `Drifted ${label}` });
  outcomes.read = await attempt(dir, async () => (await host.read(live.id, URN, live.outputs, cohort(shim))).outputs["name"] === `Drifted ${label}`);
  outcomes.update = await attempt(dir, async () => {
    await host.update(live.id, URN, live.outputs, cohort(shim, { name: `Updated ${label}` }), undefined);
    return (await service("GET", live.id)).name === `Updated ${label}`;
  });
  outcomes.delete = await attempt(dir, async () => {
    await host.delete(live.id, URN, live.outputs);
    return (await service("GET", live.id)).status === 404;
  });
  if (outcomes.delete !== "works") expect((await service("GET", live.id)).status, `${label}: the live resource is still there`).toBe(200);
  return outcomes;
}

describe("the dynamic-provider host as the Pulumi CLI runs it, on the package installed from npm pack", { timeout: 120_000 }, () => {
  for (const condition of CONDITIONS) {
    it(`${condition.name}: every operation ${condition.works ? "works" : "fails loudly"}, none is a silent no-op`, async () => {
      const target = programs.get(condition.installed)!;
      for (const shim of ["current", "previous", "first"] as const) {
        const host = await CliHost.launch({ program: target, path: condition.path, ...(condition.nodeOptions ? { nodeOptions: condition.nodeOptions } : {}), config: config() });
        try {
          failures.length = 0;
          const outcomes = await operations(host, SHIMS[shim], target.dir, `${condition.name} ${shim}`);
          table.push({ condition: condition.name, shim, outcomes });
          if (shim !== "first") {
            const expected = condition.works ? "works" : "loud";
            expect(outcomes, host.output()).toEqual(Object.fromEntries(OPERATIONS.map((op) => [op, expected])));
            for (const message of failures) expect(message).toContain(condition.fix);
          }
        } finally {
          await host.close();
        }
      }
    });
  }

  it("the first shim shows what this guards against: with the package missing, delete and read answer without reaching the service", () => {
    const missing = table.find((row) => row.condition === "package missing" && row.shim === "first");
    expect(missing?.outcomes).toMatchObject({ read: "silent", delete: "silent" });
  });

  it("a host that could not load the provider loads it once installed, with the configuration it was given", async () => {
    const target = await program({ installed: false });
    const host = await CliHost.launch({ program: target, path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, config: config() });
    try {
      const live = await liveResource(SHIMS.current, "Recovered");
      await expect(host.delete(live.id, URN, live.outputs)).rejects.toSatisfy((e: unknown) => isLoud(e, target.dir));
      await expect(host.read(live.id, URN, live.outputs)).rejects.toSatisfy((e: unknown) => isLoud(e, target.dir));
      expect((await service("GET", live.id)).status).toBe(200);
      target.install();
      // The host's environment has no key: the delete reaches the service with the one Configure gave.
      expect((await host.read(live.id, URN, live.outputs)).outputs["name"]).toBe("Recovered");
      await host.delete(live.id, URN, live.outputs);
      expect((await service("GET", live.id)).status).toBe(404);
    } finally {
      await host.close();
    }
  });

  it("one host serves two families through their own shims at once: the installed provider they share keeps its configuration", async () => {
    const target = programs.get(true)!;
    const host = await CliHost.launch({ program: target, path: `${PINNED_NODE_DIR}:/usr/bin:/bin`, config: config() });
    try {
      const hook = { url: "https://hooks.example.com/installed", enabledEvents: ["resource.errored"], __provider: providerModule("webhook_endpoints") };
      const [cohortMade, hookMade] = await Promise.all([
        host.check(URN, {}, cohort(SHIMS.current)).then(({ inputs }) => host.create(URN, inputs)),
        host.check(URN.replace(":Cohort::", ":WebhookEndpoint::"), {}, hook).then(({ inputs }) => host.create(URN.replace(":Cohort::", ":WebhookEndpoint::"), inputs)),
      ]);
      expect(cohortMade.outputs).toMatchObject({ __kind: "cohorts", __provider: providerModule("cohorts"), name: "Installed" });
      expect(hookMade.outputs).toMatchObject({ __kind: "webhook_endpoints", __provider: providerModule("webhook_endpoints"), url: hook.url });
      expect((await service("GET", cohortMade.id)).status).toBe(200);
      const hookStatus = async () => (await fetch(`${emulator.url}/v1/webhook_endpoints/${hookMade.id}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).status;
      expect(await hookStatus()).toBe(200);
      await Promise.all([host.delete(cohortMade.id, URN, cohortMade.outputs), host.delete(hookMade.id, URN, hookMade.outputs)]);
      expect((await service("GET", cohortMade.id)).status).toBe(404);
      expect(await hookStatus()).toBe(404);
    } finally {
      await host.close();
    }
  });
});
