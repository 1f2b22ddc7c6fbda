// What the plugin tells the user reaches the engine's Log service, since the Pulumi CLI hides a plugin's output: a
// warning with the resource's URN, a build's progress as an ephemeral message. The engine's address comes as the
// plugin's argument, in Handshake, or in Attach (launch.test.ts: a plugin started by hand for PULUMI_DEBUG_PROVIDERS).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { engineAddressOf } from "../../provider/plugin/engine-log.ts";
import { startFakeEngine, type FakeEngine } from "./fake-engine.ts";
import { Plugin, startWorld, urnOf, type World } from "./harness.ts";
import { COHORT, cohort, faults, LOST_ANSWER, lostAnswerOf } from "./lost-answer.ts";

let engine: FakeEngine;
let world: World;

beforeAll(async () => {
  engine = await startFakeEngine();
  world = await startWorld(undefined, engine.address);
}, 60_000);

afterAll(async () => {
  await world?.close();
  await engine?.close();
});

beforeEach(async () => {
  await faults(world.emulator.url, []);
});

describe("the engine's address among the plugin's arguments", () => {
  it("is the first argument that is no flag nor a flag's value", () => {
    expect(engineAddressOf(["127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddressOf(["--logtostderr", "-v=9", "--tracing", "http://127.0.0.1:9411", "127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddressOf([])).toBeUndefined();
  });
});

describe("messages through the engine's Log", { timeout: 60_000 }, () => {
  it("sends a warning with the resource's URN, and prints nothing of it", async () => {
    await faults(world.emulator.url, [LOST_ANSWER]);
    const checked = await world.plugin.check(COHORT, {}, cohort("Lost answer"));
    const made = await world.plugin.create(COHORT, checked.inputs);
    const warning = await engine.next(lostAnswerOf("Lost answer"));
    expect(warning).toMatchObject({ severity: "warning", urn: urnOf(COHORT), ephemeral: false });
    expect(warning.message).toContain(`${made.id}, made by it, is recorded as the created resource`);
    expect(world.plugin.output).not.toContain("answer was lost");
  });

  it("sends a build's progress as an ephemeral message with the resource's URN", async () => {
    const checked = await world.plugin.check(COHORT, {}, { ...cohort("Awaited"), waitFor: "ready" });
    const made = await world.plugin.create(COHORT, checked.inputs);
    const progress = await engine.next((m) => m.message.startsWith(`Cohort "Awaited" (${made.id}):`));
    expect(progress).toMatchObject({ severity: "info", urn: urnOf(COHORT), ephemeral: true });
  });

  it("writes a warning to stderr when no engine was given", async () => {
    const alone = await Plugin.start();
    try {
      await alone.configure({ apiKey: world.emulator.apiKey, baseUrl: `${world.emulator.url}/v1` });
      await faults(world.emulator.url, [LOST_ANSWER]);
      await alone.create(COHORT, (await alone.check(COHORT, {}, cohort("Told on stderr"))).inputs);
      expect(alone.output).toContain(`warning: Cohort "Told on stderr": the create's answer was lost`);
      expect(engine.logs.some(lostAnswerOf("Told on stderr"))).toBe(false);
    } finally {
      await alone.close();
    }
  });
});
