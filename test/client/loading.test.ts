// What the client loads: undici's Agent and request, not its index (fetch, WebSocket, caches, mocks), which would
// cost every command that calls the service a quarter of a second at start.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, shutdown } from "./loopback.ts";

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("[]"));
  baseUrl = await listen(server);
});

afterAll(() => shutdown(server));

/** Runs ESM `source` in a fresh process (asynchronously: this process's server answers it); answers its last line. */
function lastLineOf(source: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--input-type=module", "-e", source], { cwd: import.meta.dirname, env: { ...process.env, NODE_OPTIONS: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (status) => (status === 0 ? resolve(stdout.trim().split("\n").at(-1)!) : reject(new Error(`exit ${status}: ${stderr}`))));
  });
}

describe("loading", () => {
  it("a request loads undici's agent and request only, never its index", async () => {
    const loaded = JSON.parse(await lastLineOf(`
      import { createRequire } from "node:module";
      const { AudienceClient } = await import("pulumi-audience/sdk/client");
      const client = new AudienceClient({ apiKey: "sk_loading", baseUrl: ${JSON.stringify(baseUrl)} });
      await client.list("cohorts");
      await client.close();
      console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes("undici"))));
    `)) as string[];
    // The control: the check sees what the client does load.
    expect(loaded.some((path) => /[\\/]lib[\\/]api[\\/]api-request\.js$/.test(path))).toBe(true);
    expect(loaded.filter((path) => /[\\/]undici[\\/]index\.js$|[\\/]lib[\\/](web|cache|mock)[\\/]/.test(path))).toEqual([]);
  });
});
