// What a command loads at start-up: the engine's gRPC stubs (grpc-js, @pulumi/pulumi's protos, google-protobuf)
// load only when a monitor or a provider host starts. A refresh or a destroy runs no program, so a stack of this
// package's resources (served in the engine's process) needs neither, and its run never loads them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ENGINE = join(import.meta.dirname, "..", "..", "provider", "engine", "index.ts");
const STUBS = /[\\/](@grpc[\\/]grpc-js|@pulumi[\\/]pulumi|google-protobuf)[\\/]/;

const dir = mkdtempSync(join(tmpdir(), "engine-start-up-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "Pulumi.yaml"), "name: start-up\nruntime: nodejs\nmain: index.ts\n");
// The stacks refreshed and destroyed exist: their config files say so.
for (const stack of ["destroy", "refresh"]) writeFileSync(join(dir, `Pulumi.${stack}.yaml`), "config: {}\n");

/** Runs `script` (ESM, `engine` bound to the engine's module) in a fresh process; answers the gRPC stubs it loaded. */
function stubsLoadedBy(script: string): string[] {
  const source = `
    import { createRequire } from "node:module";
    const engine = await import(${JSON.stringify(ENGINE)});
    ${script}
    console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  const run = spawnSync(process.execPath, ["--conditions=source", "--input-type=module", "-e", source], {
    cwd: dir, encoding: "utf8", env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: "start-up", NODE_OPTIONS: "" },
  });
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout.trim().split("\n").at(-1)!) as string[]).filter((path) => STUBS.test(path));
}

describe("start-up", () => {
  it("importing the engine loads no gRPC stub", () => {
    expect(stubsLoadedBy("")).toEqual([]);
  });

  it.each(["destroy", "refresh"])("a %s, which runs no program, starts no monitor and loads no gRPC stub", (operation) => {
    const stubs = stubsLoadedBy(`
      const result = await engine.runProgram({ cwd: ${JSON.stringify(dir)}, operation: "${operation}", stack: "${operation}" });
      if (!result.ok) throw new Error(result.error);
    `);
    expect(stubs).toEqual([]);
  });

  it("a monitor tells its address before it loads them, and serves a connection made meanwhile", () => {
    const MONITOR = join(import.meta.dirname, "..", "..", "provider", "engine", "monitor.ts");
    const stubs = stubsLoadedBy(`
      const { startMonitor } = await import(${JSON.stringify(MONITOR)});
      const http2 = await import("node:http2");
      const handler = { register: async () => ({}), registerOutputs: async () => {}, read: async () => ({}), invoke: async () => ({}), log: () => {} };
      // Started from a setImmediate callback, it builds its gRPC server at the next one, after a poll for connections.
      const monitor = await new Promise((resolve, reject) => setImmediate(() => startMonitor(handler).then(resolve, reject)));
      if (Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("grpc-js"))) throw new Error("grpc-js loaded before the address was told");
      // A gRPC call over a connection made at once: SupportsFeature("secrets"), framed as gRPC frames it.
      const session = http2.connect("http://" + monitor.address);
      const request = session.request({ ":method": "POST", ":path": "/pulumirpc.ResourceMonitor/SupportsFeature", "content-type": "application/grpc", te: "trailers" });
      const message = Buffer.from([10, 7, ...Buffer.from("secrets")]);
      request.end(Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]));
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      await new Promise((resolve, reject) => { request.on("end", resolve); request.on("error", reject); });
      const answer = Buffer.concat(chunks).toString("hex");
      if (answer !== "00000000020801") throw new Error("unexpected answer " + answer);
      session.close();
      await monitor.close();
    `);
    expect(stubs.some((path) => path.includes("grpc-js"))).toBe(true);
  });

  it("a preview, which runs the program, does load them (the check above can see them)", () => {
    writeFileSync(join(dir, "index.ts"), "export {};\n");
    const stubs = stubsLoadedBy(`await engine.runProgram({ cwd: ${JSON.stringify(dir)}, operation: "preview", stack: "preview" });`);
    expect(stubs.some((path) => path.includes("grpc-js"))).toBe(true);
  });
});
