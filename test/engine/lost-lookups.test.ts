// A create whose answer was lost is looked for in its family's list; when that look fails too (503, 429, 500, a
// connection reset, a refused connection) the create's outcome stays unknown: it stays pending with both errors, the
// step fails naming both, and the next up looks again and records what was made instead of making a second one.
// Through the local engine in native mode (the plugin) and dynamic mode (this package's dynamic resources).
import { createServer, connect, type Server, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../provider/engine/index.ts";
import { GIVES_UP_SOON, nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });

const MODES = [["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]] as const;

/** One resource of each of three families that need nothing else. */
const program = (module: string, tag: string) => `import * as pulumi from "@pulumi/pulumi";
import * as audience from "${module}";
new audience.Cohort("cohort", { name: "Lost ${tag} cohort", streamName: "transactions", minCount: 3 });
new audience.WebhookEndpoint("hook", { url: "https://hooks.example.com/lost/${tag}", enabledEvents: ["resource.errored"] });
new audience.Connection("warehouse", { name: "Lost ${tag} warehouse", options: { type: "postgres", host: "db.example.com", port: 5432, database: "analytics", schema: "audience", user: "delivery", password: pulumi.secret("lost-password") } });
`;

const FAMILIES = ["cohorts", "webhook_endpoints", "connections"] as const;

interface Pending {
  type: string;
  reason?: string;
  resource: { urn: string };
}

function pendingOf(result: RunResult): Pending[] {
  return (JSON.parse(readFileSync(result.statePath, "utf8")) as { deployment: { pending_operations?: Pending[] } }).deployment.pending_operations ?? [];
}

/** The program's resources in the account, by family and name (or url). */
async function liveIds(apiKey: string, tag: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const family of FAMILIES) {
    for (const r of await world.list<{ id: string; name?: string; url?: string }>(apiKey, family)) {
      const key = `${family}:${r.name ?? r.url ?? ""}`;
      if (!(key.includes(`Lost ${tag} `) || key.endsWith(`/lost/${tag}`))) continue;
      expect(ids.has(key), `a second ${key}`).toBe(false);
      ids.set(key, r.id);
    }
  }
  return ids;
}

const live = async (apiKey: string, tag: string) => [...(await liveIds(apiKey, tag)).keys()].sort();

/** The ids the state records for the program's resources. */
function recordedIds(result: RunResult): string[] {
  const state = JSON.parse(readFileSync(result.statePath, "utf8")) as { deployment: { resources: { custom?: boolean; type: string; id?: string }[] } };
  return state.deployment.resources.filter((r) => r.custom && !r.type.startsWith("pulumi:providers:") && r.id).map((r) => r.id!).sort();
}

/**
 * A TCP relay to the emulator that, once armed, stops listening when a create it carries is cut off: every request
 * after it (the look) finds the port refusing connections, until `reopen`.
 */
async function relay(to: URL): Promise<{ url: string; arm(): void; reopen(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let armed = false;
  let port = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(to.port), to.hostname);
    sockets.add(upstream);
    // The request this connection carries last: a cohort's create, or something else.
    let create = false;
    client.on("data", (chunk: Buffer) => (create = chunk.toString("latin1").startsWith("POST /v1/cohorts ")));
    client.pipe(upstream).pipe(client);
    const cut = () => {
      if (armed && create) {
        armed = false;
        server.close();
        for (const s of sockets) s.destroy();
      }
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.on("close", cut).on("error", cut);
    client.on("close", cut).on("error", cut);
  });
  const listen = () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  await listen();
  port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    arm: () => (armed = true),
    reopen: listen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.each(MODES)("a lost create whose look fails too, in %s mode", { timeout: 300_000 }, (mode, module) => {
  it("stays pending with both errors (look answered 503, 429, 500), and the next up finds what it made", async () => {
    const { apiKey } = await world.account(`lookups-${mode}`);
    const tag = `status-${mode}`;
    const dir = world.program(`lookups-${mode}`, { index: program(module, tag) });
    const looks = { cohorts: { status: 503 }, webhook_endpoints: { status: 429, retry_after: 0.05 }, connections: { status: 500 } };
    await world.control("PUT", "/faults", {
      rules: FAMILIES.flatMap((family) => [
        { method: "POST", path: `/${family}`, reset: "after", count: 1 },
        { method: "GET", path: `/${family}`, ...looks[family] },
      ]),
    });
    const first = await world.run(dir, apiKey, "up", { env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(first.ok).toBe(false);
    const failed = first.steps.filter((s) => s.phase === "failed");
    expect(failed).toHaveLength(3);
    for (const step of failed) {
      expect(step.error).toMatch(/the create's answer was lost \(.*connection failed.*\) and the look for what it made failed too/);
      expect(step.error).toMatch(/GET \/\w+: (503|429|500)/);
    }
    const pending = pendingOf(first);
    expect(pending.map((p) => p.type)).toEqual(["creating", "creating", "creating"]);
    for (const p of pending) expect(p.reason).toContain("the look for what it made failed too");
    // Each create did land: one of each, made by the lost creates.
    const made = await liveIds(apiKey, tag);
    expect(made.size).toBe(3);

    const second = await world.run(dir, apiKey, "up");
    expect(second.ok, second.error).toBe(true);
    expect(second.diagnostics.some((d) => d.message.includes("its outcome is unknown"))).toBe(true);
    if (mode === "dynamic") expect(second.diagnostics.filter((d) => d.message.includes("is recorded as the created resource"))).toHaveLength(3);
    expect(await liveIds(apiKey, tag)).toEqual(made);
    expect(recordedIds(second)).toEqual([...made.values()].sort());
    expect(pendingOf(second)).toEqual([]);
  });

  it("stays pending when the look's connection is reset or refused, and the next up finds what it made", async () => {
    const { apiKey } = await world.account(`lookups-net-${mode}`);
    for (const how of ["reset", "refused"] as const) {
      const tag = `${how}-${mode}`;
      const dir = world.program(`lookups-${how}-${mode}`, { index: program(module, tag) });
      const proxy = await relay(new URL(world.emulator.url));
      try {
        const env = { AUDIENCE_BASE_URL: proxy.url, ...GIVES_UP_SOON };
        // Only the cohort's create is lost; the others go through.
        await world.control("PUT", "/faults", {
          rules: [
            { method: "POST", path: "/cohorts", reset: "after", count: 1 },
            ...(how === "reset" ? [{ method: "GET", path: "/cohorts", reset: "before" }] : []),
          ],
        });
        if (how === "refused") proxy.arm();
        const first = await world.run(dir, apiKey, "up", { env });
        await world.control("DELETE", "/faults");
        expect(first.ok).toBe(false);
        // A refused port also cuts off the others' requests then: one in flight is lost and looked for in vain; one
        // not yet sent (on a slow machine) is refused at connect, made nothing for sure and is not pending.
        const failed = first.steps.filter((s) => s.phase === "failed");
        expect(failed.map((s) => s.name), how).toContain("cohort");
        expect(failed.find((s) => s.name === "cohort")?.error).toMatch(how === "refused" ? /look for what it made failed too \(GET \/cohorts: could not connect \(ECONNREFUSED\)/ : /look for what it made failed too \(GET \/cohorts: /);
        const lost = failed.filter((s) => s.error?.includes("the look for what it made failed too"));
        for (const step of failed) expect(step.error).toMatch(how === "refused" ? /the look for what it made failed too|^POST \/\w+: could not connect \(ECONNREFUSED\)/ : /the look for what it made failed too/);
        expect(pendingOf(first).map((p) => p.resource.urn.split("::").pop()).sort()).toEqual(lost.map((s) => s.name).sort());

        if (how === "refused") await proxy.reopen();
        const second = await world.run(dir, apiKey, "up", { env });
        expect(second.ok, second.error).toBe(true);
        if (mode === "dynamic") expect(second.diagnostics.some((d) => d.message.includes("is recorded as the created resource"))).toBe(true);
        expect(recordedIds(second)).toEqual([...(await liveIds(apiKey, tag)).values()].sort());
        expect(await live(apiKey, tag)).toEqual([`cohorts:Lost ${tag} cohort`, `connections:Lost ${tag} warehouse`, `webhook_endpoints:https://hooks.example.com/lost/${tag}`]);
        expect(pendingOf(second)).toEqual([]);
      } finally {
        await proxy.close();
      }
    }
  });
});

describe.each(MODES)("an update or delete whose answer was lost, in %s mode", { timeout: 300_000 }, (mode, module) => {
  it("stays pending with the reason until the next run sends it again", async () => {
    const { apiKey } = await world.account(`lost-writes-${mode}`);
    const dir = world.program(`lost-writes-${mode}`, { index: `import * as pulumi from "@pulumi/pulumi";
import * as audience from "${module}";
new audience.Cohort("cohort", { name: "Lost writes ${mode}", streamName: "transactions", minCount: 3 + (new pulumi.Config().getNumber("bump") ?? 0) });
` });
    const pendingTypes = (r: RunResult) => pendingOf(r).map((p) => [p.type, p.reason?.includes("outcome unknown") ?? false]);
    const cohort = async () => (await world.list<{ id: string; name: string; min_count: number }>(apiKey, "cohorts")).filter((c) => c.name === `Lost writes ${mode}`);
    expect((await world.run(dir, apiKey, "up")).ok).toBe(true);

    await world.control("PUT", "/faults", { rules: [{ method: "PATCH", path: "/cohorts/*", status: 500 }] });
    const update = await world.run(dir, apiKey, "up", { config: { bump: "1" }, env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(update.ok).toBe(false);
    expect(update.error).toContain("outcome unknown: the update of Cohort");
    expect(pendingTypes(update)).toEqual([["updating", true]]);
    const updated = await world.run(dir, apiKey, "up", { config: { bump: "1" } });
    expect(updated.ok, updated.error).toBe(true);
    expect(updated.diagnostics.some((d) => d.message.includes("an interrupted update of") && d.message.includes("its outcome is unknown"))).toBe(true);
    expect(pendingOf(updated)).toEqual([]);
    expect((await cohort()).map((c) => c.min_count)).toEqual([4]);

    await world.control("PUT", "/faults", { rules: [{ method: "DELETE", path: "/cohorts/*", status: 503 }] });
    const destroy = await world.run(dir, apiKey, "destroy", { config: { bump: "1" }, env: GIVES_UP_SOON });
    await world.control("DELETE", "/faults");
    expect(destroy.ok).toBe(false);
    expect(pendingTypes(destroy)).toEqual([["deleting", true]]);
    const destroyed = await world.run(dir, apiKey, "destroy", { config: { bump: "1" } });
    expect(destroyed.ok, destroyed.error).toBe(true);
    expect(pendingOf(destroyed)).toEqual([]);
    expect(await cohort()).toEqual([]);
  });
});
