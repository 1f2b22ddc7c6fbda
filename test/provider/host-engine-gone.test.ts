// Pulumi's dynamic-provider host, once it has loaded this package's provider, ends when the engine that started it
// is killed outright (its address refusing connections) instead of serving on for minutes.
import { createServer, type AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { launchPlugin, stopPlugin } from "../../provider/protocol/launch.ts";
import { resolvePulumiModule } from "../../provider/protocol/proto.ts";
import { providerModule } from "../../provider/runtime/resources/shim.ts";
import { rawPlugin } from "../plugin/raw-client.ts";
import { REPO_ROOT } from "./harness.ts";

// Gone 3 s after the provider loaded, or within its first probe's interval (a `pulumi up` killed at once).
it.each([3_000, 300])("ends a few seconds after the engine that started it is gone (%i ms after it loaded)", { timeout: 60_000 }, async (afterMs) => {
  // Stands in for the engine's address: it answers, then goes away.
  const engineAt = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engineAt.listen(0, "127.0.0.1", resolve));
  const entry = resolvePulumiModule(REPO_ROOT, "cmd/dynamic-provider/index.js");
  const env = { ...process.env, NODE_OPTIONS: "--conditions=source", AUDIENCE_API_KEY: "", AUDIENCE_BASE_URL: "" };
  const { child, port } = await launchPlugin("dynamic-provider host", [entry, `127.0.0.1:${(engineAt.address() as AddressInfo).port}`], { cwd: REPO_ROOT, env });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const host = rawPlugin(port);
  try {
    // Any call through the shim loads the provider (this one then fails: no account is configured).
    await host.create("urn:pulumi:dev::p::pulumi-nodejs:dynamic/audience:Cohort::c", { __provider: providerModule("cohorts"), name: "Loaded" }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    expect(child.exitCode).toBeNull();
    await new Promise<void>((resolve) => engineAt.close(() => resolve()));
    const code = await Promise.race([exited, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000))]);
    expect(code).toBe(0);
  } finally {
    host.close();
    if (child.exitCode === null) await stopPlugin(child);
  }
});
