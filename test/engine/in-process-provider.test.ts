// The engine serves this package's resources in its own process: each call answers what the dynamic-provider host
// answers for the same resource (so the state an up records is the same), and a build that fails keeps its resource
// as the host reports it. Other dynamic resources still go to the host.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorControl, startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { inProcessProvider, servedInProcess } from "../../provider/cli/extension.ts";
import { DynamicProviders, InProcessProvider } from "../../provider/engine/in-process-provider.ts";
import { DynamicProviderHost, ResourceInitFailedError } from "../../provider/engine/provider-host.ts";
import type { ResourceCalls } from "../../provider/engine/resource-calls.ts";
import type { PropertyMap } from "../../provider/protocol/values.ts";
import { EARLIER_PROVIDER_MODULES, providerModule } from "../../provider/runtime/resources/shim.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const URN = "urn:pulumi:dev::parity::pulumi-nodejs:dynamic/audience:Cohort::c";
const SCOPE_URN = "urn:pulumi:dev::parity::pulumi-nodejs:dynamic/audience:Scope::s";

let emulator: RunningEmulator;
let host: DynamicProviderHost;
let own: InProcessProvider;
const warnings: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, builds: { default: "manual" } });
  const env = { ...process.env, AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey, NODE_OPTIONS: "--conditions=source" };
  host = await DynamicProviderHost.start({ cwd: ROOT, env, engineAddress: "127.0.0.1:1" });
  await host.configure({});
  own = inProcessProvider({ config: {}, env, report: (m) => warnings.push(m) });
}, 60_000);
afterAll(async () => {
  await host?.close();
  await emulator?.close();
});

/** A cohort as the program registers it: its family named by its shim alone. */
const cohort = (extra: PropertyMap = {}): PropertyMap => ({ name: "Parity", streamName: "transactions", minCount: 2, deletionMode: "delete", __provider: providerModule("cohorts"), ...extra });

/** What differs between two resources of the same inputs: their identity and times. */
function comparable(outputs: PropertyMap): PropertyMap {
  return Object.fromEntries(Object.entries(outputs).filter(([k]) => k !== "id" && !k.endsWith("At")));
}

describe("this package's resources in the engine's process", { timeout: 60_000 }, () => {
  it("check, create, diff, read, update and delete answer as the dynamic-provider host does", async () => {
    const both = async <T>(call: (p: ResourceCalls) => Promise<T>) => [await call(host), await call(own)] as const;

    const [hostBad, ownBad] = await both((p) => p.check(URN, {}, cohort({ minCount: "two" })));
    expect(ownBad.failures.length).toBeGreaterThan(0);
    expect(ownBad).toEqual(hostBad);

    const [hostChecked, ownChecked] = await both((p) => p.check(URN, {}, cohort()));
    expect(ownChecked).toEqual(hostChecked);
    // Check records the family the shim names, as earlier versions' programs registered it.
    expect(ownChecked.inputs).toMatchObject({ __kind: "cohorts", __provider: providerModule("cohorts") });

    const [hostMade, ownMade] = await both((p) => p.create(URN, hostChecked.inputs));
    expect(ownMade.id).not.toBe(hostMade.id);
    expect(comparable(ownMade.outputs)).toEqual(comparable(hostMade.outputs));
    expect(ownMade.outputs).toMatchObject({ __kind: "cohorts", __provider: providerModule("cohorts") });

    const renamed = (await own.check(URN, ownChecked.inputs, cohort({ name: "Parity 2" }))).inputs;
    for (const news of [ownChecked.inputs, renamed]) {
      expect(await own.diff(ownMade.id, URN, ownMade.outputs, news)).toEqual(await host.diff(hostMade.id, URN, hostMade.outputs, news, hostChecked.inputs, []));
    }

    const hostRead = await host.read(hostMade.id, URN, hostMade.outputs, hostChecked.inputs);
    const ownRead = await own.read(ownMade.id, URN, ownMade.outputs, ownChecked.inputs);
    expect(ownRead.id).toBe(ownMade.id);
    expect(comparable(ownRead.outputs)).toEqual(comparable(hostRead.outputs));
    expect(ownRead.inputs).toEqual(hostRead.inputs);

    const hostUpdated = await host.update(hostMade.id, URN, hostMade.outputs, renamed, hostChecked.inputs);
    const ownUpdated = await own.update(ownMade.id, URN, ownMade.outputs, renamed);
    expect(ownUpdated["name"]).toBe("Parity 2");
    expect(comparable(ownUpdated)).toEqual(comparable(hostUpdated));

    await host.delete(hostMade.id, URN, hostUpdated);
    await own.delete(ownMade.id, URN, ownUpdated);
    // Gone: both read back no id.
    expect((await own.read(ownMade.id, URN, ownUpdated)).id).toBe("");
    expect((await host.read(hostMade.id, URN, hostUpdated)).id).toBe("");
  });

  it("a build that fails keeps its resource: the error carries its id, outputs and reasons", async () => {
    const { id: members } = (await own.create(URN, (await own.check(URN, {}, cohort({ name: "Members" }))).inputs));
    const scope = (await own.check(SCOPE_URN, {}, {
      name: "Broken", population: { cohortIds: [members] }, payload: { cohortIds: [members] }, preview: true, waitFor: "ready", waitTimeoutSeconds: 30,
      __provider: providerModule("scopes"),
    })).inputs;
    const failing = own.create(SCOPE_URN, scope).catch((e: unknown) => e);
    const plane = emulatorControl(emulator.url);
    const advance = async () => {
      for (let i = 0; i < 100; i++) {
        const pending = await plane.pendingBuilds();
        const build = pending.find((b) => b.resource_type === "scopes");
        if (build) {
          await plane.advanceBuilds({ id: build.id, to: "error", error: "cohort has no members" });
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await advance();
    const error = (await failing) as ResourceInitFailedError;
    expect(error).toBeInstanceOf(ResourceInitFailedError);
    expect(error.message).toMatch(/cohort has no members/);
    expect(error.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.reasons.join()).toMatch(/cohort has no members/);
    expect(error.outputs).toMatchObject({ __provider: providerModule("scopes"), __kind: "scopes", status: "error", name: "Broken" });
  });

  it("routes by the provider a resource records: this package's shim in process, any other to the host", async () => {
    expect(servedInProcess(cohort())).toBe(true);
    expect(servedInProcess({ name: "x", __provider: "exports.handler = () => ({});" })).toBe(false);
    const calls: string[] = [];
    const recording = (name: string): ResourceCalls => ({
      check: async () => (calls.push(name), { inputs: {}, failures: [] }),
      diff: async () => (calls.push(name), { changes: "none", replaces: [], deleteBeforeReplace: false }),
      create: async () => (calls.push(name), { id: "1", outputs: {} }),
      read: async () => (calls.push(name), { id: "1", outputs: {} }),
      update: async () => (calls.push(name), {}),
      delete: async () => void calls.push(name),
    });
    const routed = new DynamicProviders(servedInProcess, () => recording("own"), async () => recording("host"));
    await routed.check(URN, {}, cohort());
    await routed.create(URN, { name: "note", __provider: "exports.handler = () => ({});" });
    await routed.delete("1", URN, cohort());
    await routed.read("1", URN, undefined, { __provider: "other" });
    expect(calls).toEqual(["own", "host", "own", "host"]);
  });

  it("serves a resource whose state an earlier version wrote (its older __provider text) in process too", async () => {
    expect(EARLIER_PROVIDER_MODULES.length).toBeGreaterThan(0);
    for (const earlier of EARLIER_PROVIDER_MODULES) {
      expect(earlier).not.toBe(providerModule("cohorts"));
      expect(servedInProcess(cohort({ __kind: "cohorts", __provider: earlier }))).toBe(true);
    }
    // Read and delete of such a resource reach the service from this process.
    const [earlier] = EARLIER_PROVIDER_MODULES;
    const made = await own.create(URN, (await own.check(URN, {}, cohort({ name: "Older state" }))).inputs);
    const recorded = { ...made.outputs, __provider: earlier! };
    const routed = new DynamicProviders(servedInProcess, () => own, async () => { throw new Error("sent to the host"); });
    expect((await routed.read(made.id, URN, recorded)).outputs["name"]).toBe("Older state");
    await routed.delete(made.id, URN, recorded);
    expect((await own.read(made.id, URN, recorded)).id).toBe("");
  });
});
