// The `pulumi-resource-audience` process as the Pulumi CLI meets it: the packaged executable prints its port first
// and serves, and a plugin started by hand (PULUMI_DEBUG_PROVIDERS=audience:<port>) takes the engine's address from
// Handshake or Attach. The other plugin tests serve the plugin in their own process (harness.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { VERSION } from "../../provider/plugin/manifest.ts";
import { launchPlugin, stopPlugin, type LaunchedPlugin } from "../../provider/protocol/launch.ts";
import { startFakeEngine, type FakeEngine } from "./fake-engine.ts";
import { REPO_ROOT, urnOf } from "./harness.ts";
import { COHORT, cohort, faults, LOST_ANSWER, lostAnswerOf } from "./lost-answer.ts";
import { rawPlugin } from "./raw-client.ts";

let engine: FakeEngine;
let emulator: RunningEmulator;

beforeAll(async () => {
  engine = await startFakeEngine();
  emulator = await startEmulator({ port: 0 });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  await engine?.close();
});

beforeEach(async () => {
  await faults(emulator.url, []);
});

describe("the packaged executable", () => {
  // It also loads only Pulumi's protocol modules of @pulumi/pulumi, not its index (the whole runtime, npm's arborist
  // among it), which would double the time every run waits for the plugin to start.
  it("bin/pulumi-resource-audience.js prints its port first and serves the plugin, without loading @pulumi/pulumi's index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "audience-plugin-loads-"));
    const loads = join(dir, "loads.json");
    const hook = join(dir, "hook.cjs");
    writeFileSync(hook, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loads)}, JSON.stringify(Object.keys(require.cache).filter((p) => p.includes("@pulumi/pulumi")))));\n`);
    const bin = fileURLToPath(new URL("../../bin/pulumi-resource-audience.js", import.meta.url));
    const { child, port } = await launchPlugin("packaged plugin", [bin, "127.0.0.1:1"], { cwd: REPO_ROOT, env: { ...process.env, NODE_OPTIONS: `--require=${hook}` } });
    try {
      const info = await new Promise<string>((resolve, reject) => {
        import("../../provider/protocol/proto.ts").then(({ grpc, providerRpc, emptyProto }) => {
          const client = new providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
          client.getPluginInfo(new emptyProto.Empty(), (err, res) => {
            client.close();
            if (err) reject(err);
            else resolve(res.getVersion());
          });
        }, reject);
      });
      expect(info).toBe(VERSION);
    } finally {
      await stopPlugin(child);
    }
    const loaded = JSON.parse(readFileSync(loads, "utf8")) as string[];
    rmSync(dir, { recursive: true, force: true });
    // The control: the hook sees the protocol module the call needed.
    expect(loaded.some((path) => path.endsWith("/proto/provider_grpc_pb.js"))).toBe(true);
    expect(loaded.filter((path) => /@pulumi[\\/]pulumi[\\/]index\.js$/.test(path))).toEqual([]);
  });
});

describe("an engine killed outright (SIGKILL), which sends the plugin no signal", { timeout: 60_000 }, () => {
  it("is noticed by the plugin, which exits instead of lingering", async () => {
    // Stands in for the engine's address: it answers, then goes away.
    const engineAt = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => engineAt.listen(0, "127.0.0.1", resolve));
    const bin = fileURLToPath(new URL("../../bin/pulumi-resource-audience.js", import.meta.url));
    const { child } = await launchPlugin("packaged plugin", [bin, `127.0.0.1:${(engineAt.address() as AddressInfo).port}`], { cwd: REPO_ROOT, env: process.env });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // seen once
      expect(child.exitCode).toBeNull();
      await new Promise<void>((resolve) => engineAt.close(() => resolve()));
      const code = await Promise.race([exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000))]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) await stopPlugin(child);
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
      await plugin.configure({ "audience:config:apiKey": emulator.apiKey, "audience:config:baseUrl": `${emulator.url}/v1` });
      await faults(emulator.url, [LOST_ANSWER]);
      const urn = urnOf(COHORT, "attached");
      await plugin.create(urn, cohort("Attached"));
      expect(await engine.next(lostAnswerOf("Attached"))).toMatchObject({ severity: "warning", urn });
      expect(started.stderr.join("\n")).not.toContain("answer was lost");
    } finally {
      plugin.close();
    }
  });

  it("names what changed in a provider's configuration, for the plan to show (`~ apiKey`)", async () => {
    const plugin = rawPlugin(started.port);
    try {
      const diff = await plugin.diffConfig(urnOf("pulumi:providers:audience", "north"), { apiKey: "old-key", baseUrl: "https://a.example/v1" }, { apiKey: "new-key", baseUrl: "https://a.example/v1", maxRetries: 3 });
      expect(diff).toEqual({ diffs: ["apiKey", "maxRetries"], detailed: { apiKey: "UPDATE", maxRetries: "ADD" } });
    } finally {
      plugin.close();
    }
  });

  it("takes the engine's address from Handshake, as the CLI sends it when it attaches", async () => {
    const second = await startFakeEngine();
    const plugin = rawPlugin(started.port);
    try {
      await plugin.handshake(second.address);
      await faults(emulator.url, [LOST_ANSWER]);
      await plugin.create(urnOf(COHORT, "handshaken"), cohort("Handshaken"));
      expect(await second.next(lostAnswerOf("Handshaken"))).toMatchObject({ severity: "warning" });
    } finally {
      plugin.close();
      await second.close();
    }
  });
});
