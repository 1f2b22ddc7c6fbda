// Pulumi's dynamic-provider host answers the engine's Cancel with nothing: a Ctrl-C at a terminal (which reaches the
// host with the CLI) stops a wait for a build at once, the resource kept, instead of waiting out waitTimeoutSeconds;
// and an idle host still ends at once on the SIGINT with which Pulumi ends its plugins after every command.
import type { ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { launchPlugin, stopPlugin } from "../../provider/protocol/launch.ts";
import { resolvePulumiModule } from "../../provider/protocol/proto.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";
import { rawPlugin, type RawPlugin } from "../plugin/raw-client.ts";
import { REPO_ROOT } from "./harness.ts";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, builds: { default: "manual" } });
});
afterAll(() => emulator?.close());

/** The host started as Pulumi starts it, against an address standing in for its engine; runs `use`, then stops it. */
async function withHost(use: (host: RawPlugin, child: ChildProcess) => Promise<void>): Promise<void> {
  const engineAt = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engineAt.listen(0, "127.0.0.1", resolve));
  const entry = resolvePulumiModule(REPO_ROOT, "cmd/dynamic-provider/index.js");
  const env = { ...process.env, NODE_OPTIONS: "--conditions=source", AUDIENCE_API_KEY: emulator.apiKey, AUDIENCE_BASE_URL: `${emulator.url}/v1` };
  const { child, port } = await launchPlugin("dynamic-provider host", [entry, `127.0.0.1:${(engineAt.address() as AddressInfo).port}`], { cwd: REPO_ROOT, env });
  const host = rawPlugin(port);
  try {
    await use(host, child);
  } finally {
    host.close();
    await new Promise<void>((resolve) => engineAt.close(() => resolve()));
    if (child.exitCode === null && child.signalCode === null) await stopPlugin(child);
  }
}

it("stops a wait for a build when the host is interrupted (SIGINT), keeping the resource", { timeout: 60_000 }, () => withHost(async (host, child) => {
  const cohorts = (await (await fetch(`${emulator.url}/v1/cohorts`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).json()) as { id: string; name: string }[];
  const customers = cohorts.find((c) => c.name === "Customers")!.id;
  const started = Date.now();
  const created = host.create("urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Outcome::o", {
    __provider: providerModule("outcomes"), name: "Will buy", attainmentCohortId: customers, waitFor: "ready", waitTimeoutSeconds: 600,
  }).then(() => undefined, (e: unknown) => e as Error);
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the create made, its build held (manual)
  child.kill("SIGINT");
  const error = await created;
  expect(error?.message).toMatch(/Outcome [0-9a-f-]{36}: the wait for its build was cancelled while new; it stays in the stack/);
  expect(Date.now() - started).toBeLessThan(15_000);
}));

it("ends at once when interrupted with nothing in flight, as Pulumi ends its plugins after every command", { timeout: 60_000 }, () => withHost(async (host, child) => {
  // A call loads the provider and its interrupt handler (this one made, and answered).
  await host.create("urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Cohort::c", { __provider: providerModule("cohorts"), name: "Idle", streamName: "transactions" });
  const exited = new Promise<number>((resolve) => child.once("exit", () => resolve(Date.now())));
  const sent = Date.now();
  child.kill("SIGINT");
  expect(await exited - sent).toBeLessThan(2_000);
}));
