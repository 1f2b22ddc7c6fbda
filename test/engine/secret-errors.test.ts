// A service (or a proxy before it) whose error quotes the request it refused: the secrets in that request are masked
// wherever the run shows or records the failure (its step error, its result, a pending operation's reason in the
// state and the state's backup), as Pulumi's engine masks the values it knows to be secret.
import { createServer, request, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultJson } from "../../provider/cli/render.ts";
import { GIVES_UP_SOON, nativePrograms } from "./native-programs.ts";

const world = nativePrograms({ port: 0, builds: { default: "immediate" } });
const PASSWORD = "echoed-pw-7731";
const MODES = [["native", "pulumi-audience/native"], ["dynamic", "pulumi-audience"]] as const;

/** A proxy to the emulator that answers every create of a connection with a 500 page quoting the request's body. */
let proxy: Server;
let proxyUrl: string;
beforeAll(async () => {
  const upstream = new URL(world.emulator.url);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => {
      const body = Buffer.concat(chunks);
      if (req.method === "POST" && req.url === "/v1/connections") {
        res.writeHead(500, { "content-type": "text/html" }).end(`<html>Internal error while handling ${body.toString()}</html>`);
        return;
      }
      const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", () => resolve()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

describe.each(MODES)("an error quoting a secret, in %s mode", { timeout: 300_000 }, (mode, module) => {
  it("shows and records it masked", async () => {
    const { apiKey } = await world.account(`echo-${mode}`);
    const dir = world.program(`echo-${mode}`, {
      index: `import * as pulumi from "@pulumi/pulumi";
import * as audience from "${module}";
new audience.Connection("warehouse", { name: "Echoed ${mode}", options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: new pulumi.Config().requireSecret("pgPassword") } });
`,
    });
    const result = await world.run(dir, apiKey, "up", { env: { AUDIENCE_BASE_URL: proxyUrl, ...GIVES_UP_SOON }, secrets: { pgPassword: PASSWORD } });
    expect(result.ok).toBe(false);
    const failed = result.steps.find((s) => s.phase === "failed");
    expect(failed?.error).toContain("Internal error while handling");
    expect(failed?.error).toContain('"password":"[secret]"');
    expect(resultJson(result)).not.toContain(PASSWORD);
    const state = readFileSync(result.statePath, "utf8");
    expect(state).toContain("Internal error while handling"); // the pending create's reason
    expect(state).not.toContain(PASSWORD);
    expect(readFileSync(`${result.statePath}.bak`, "utf8")).not.toContain(PASSWORD);
  });
});
