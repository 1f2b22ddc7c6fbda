// What the plugin tells the user reaches the engine's Log service, since the Pulumi CLI hides a plugin's output: a
// warning with the resource's URN, a build's progress as an ephemeral message. The engine's address comes as the
// plugin's argument, in Handshake, or in Attach (a plugin started by hand for PULUMI_DEBUG_PROVIDERS=audience:<port>).
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { engineAddressOf } from "../../provider/plugin/engine-log.ts";
import { launchPlugin, stopPlugin, type LaunchedPlugin } from "../../provider/protocol/launch.ts";
import { startFakeEngine, type FakeEngine, type LoggedMessage } from "./fake-engine.ts";
import { Plugin, REPO_ROOT, startWorld, urnOf, type World } from "./harness.ts";
import { rawPlugin } from "./raw-client.ts";

const COHORT = "audience:index:Cohort";

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
  await faults([]);
});

/** Sets the emulator's injected faults. */
async function faults(rules: Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${world.emulator.url}/_emulator/faults`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules }) });
  expect(res.status).toBeLessThan(300);
}

/** A create of a cohort whose answer the emulator loses after making it: the plugin finds it and warns. */
const LOST_ANSWER = { method: "POST", path: "/cohorts", reset: "after", count: 1 };
const cohort = (name: string) => ({ name, streamName: "transactions", minCount: 100 });
const lostAnswerOf = (name: string) => (m: LoggedMessage) => m.message.includes(`Cohort "${name}": the create's answer was lost`);

describe("the engine's address among the plugin's arguments", () => {
  it("is the first argument that is no flag nor a flag's value", () => {
    expect(engineAddressOf(["127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddressOf(["--logtostderr", "-v=9", "--tracing", "http://127.0.0.1:9411", "127.0.0.1:4000"])).toBe("127.0.0.1:4000");
    expect(engineAddressOf([])).toBeUndefined();
  });
});

describe("messages through the engine's Log", { timeout: 60_000 }, () => {
  it("sends a warning with the resource's URN, and prints nothing of it", async () => {
    await faults([LOST_ANSWER]);
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
    const progress = await engine.next((m) => m.message.startsWith(`Cohort ${made.id}:`));
    expect(progress).toMatchObject({ severity: "info", urn: urnOf(COHORT), ephemeral: true });
  });

  it("writes a warning to stderr when no engine was given", async () => {
    const alone = await Plugin.start();
    try {
      await alone.configure({ apiKey: world.emulator.apiKey, baseUrl: `${world.emulator.url}/v1` });
      await faults([LOST_ANSWER]);
      await alone.create(COHORT, (await alone.check(COHORT, {}, cohort("Told on stderr"))).inputs);
      expect(alone.output).toContain(`warning: Cohort "Told on stderr": the create's answer was lost`);
      expect(engine.logs.some(lostAnswerOf("Told on stderr"))).toBe(false);
    } finally {
      await alone.close();
    }
  });
});

describe("Attach (PULUMI_DEBUG_PROVIDERS=audience:<port>)", { timeout: 60_000 }, () => {
  let started: LaunchedPlugin;
  beforeAll(async () => {
    // Started by hand, as a user debugging it does: no arguments, so no engine until one attaches.
    const bin = fileURLToPath(new URL("../../bin/pulumi-resource-audience.js", import.meta.url));
    started = await launchPlugin("audience plugin", [bin], { cwd: REPO_ROOT, env: { ...process.env, AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" } });
  }, 60_000);
  afterAll(async () => {
    if (started) await stopPlugin(started.child);
  });

  it("takes the engine's address from Attach, after a Handshake that gave none, and logs there", async () => {
    const plugin = rawPlugin(started.port);
    try {
      await plugin.handshake("");
      await plugin.attach(engine.address);
      await plugin.configure({ "audience:config:apiKey": world.emulator.apiKey, "audience:config:baseUrl": `${world.emulator.url}/v1` });
      await faults([LOST_ANSWER]);
      const urn = urnOf(COHORT, "attached");
      await plugin.create(urn, cohort("Attached"));
      expect(await engine.next(lostAnswerOf("Attached"))).toMatchObject({ severity: "warning", urn });
      expect(started.stderr.join("\n")).not.toContain("answer was lost");
    } finally {
      plugin.close();
    }
  });

  it("takes the engine's address from Handshake, as the CLI sends it when it attaches", async () => {
    const second = await startFakeEngine();
    const plugin = rawPlugin(started.port);
    try {
      await plugin.handshake(second.address);
      await faults([LOST_ANSWER]);
      await plugin.create(urnOf(COHORT, "handshaken"), cohort("Handshaken"));
      expect(await second.next(lostAnswerOf("Handshaken"))).toMatchObject({ severity: "warning" });
    } finally {
      plugin.close();
      await second.close();
    }
  });
});
