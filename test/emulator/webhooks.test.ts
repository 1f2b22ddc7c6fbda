// Webhook deliveries: signed POSTs to enabled endpoints for failed builds and finished re-runs.
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { emulator, seeded, type Client, type Json } from "./helpers.ts";

let api: Client;
let receiver: Server;
let hookUrl: string;
const received: { url: string; headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  api = await emulator({ builds: { default: "manual" } });
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ url: req.url ?? "", headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
  const address = receiver.address();
  hookUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hook`;
});
afterAll(async () => {
  await api.close();
  await new Promise((ok) => receiver.close(ok));
});

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}

it("posts signed events for a failed build and a finished re-run, only to subscribed, enabled endpoints", async () => {
  const ids = await seeded(api);
  const hook = (await api.post<Json>("/v1/webhook_endpoints", { url: hookUrl, enabled_events: ["resource.errored", "resource.ready_with_update"] })).body;
  await api.post("/v1/webhook_endpoints", { url: `${hookUrl}?disabled`, enabled_events: ["resource.errored"], status: "disabled" });
  const secret = (await api.control<Json>("GET", `/webhook_endpoints/${String(hook.id)}/secret`)).body.secret as string;
  expect(secret).toMatch(/^whsec_/);
  expect(JSON.stringify((await api.get(`/v1/webhook_endpoints/${String(hook.id)}`)).body)).not.toContain(secret);

  const outcome = (await api.post<Json>("/v1/outcomes", { name: "Will churn", attainment_cohort_id: ids.leads })).body;
  await api.control("POST", "/builds/advance", { id: outcome.id, error: "not enough attainment events" });
  const errored = await until(async () => received.find((r) => r.body.includes("resource.errored")));
  const timestamp = String(errored.headers["webhook-timestamp"]);
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${errored.body}`).digest("hex")}`;
  expect(errored.headers["webhook-signature"]).toBe(expected);
  expect(JSON.parse(errored.body)).toMatchObject({
    type: "resource.errored", data: { resource_type: "outcomes", resource_id: outcome.id, status: "error", status_error: "not enough attainment events" },
  });

  await api.post(`/v1/outcomes/${String(outcome.id)}/force_update`);
  await api.control("POST", "/builds/advance", { id: outcome.id, to: "ready" });
  expect(received.some((r) => r.body.includes("ready_with_update"))).toBe(false); // its first successful build

  await api.post(`/v1/outcomes/${String(outcome.id)}/force_update`);
  await api.control("POST", "/builds/advance", { id: outcome.id, to: "ready" });
  const updated = await until(async () => received.find((r) => r.body.includes("resource.ready_with_update")));
  expect(JSON.parse(updated.body)).toMatchObject({ data: { resource_id: outcome.id, status: "ready" } });

  const deliveries = (await api.control<Json[]>("GET", "/webhooks/deliveries")).body;
  expect(deliveries.map((d) => [d.event, d.status])).toEqual([["resource.errored", 204], ["resource.ready_with_update", 204]]);
  expect(received.map((r) => r.url)).toEqual(["/hook", "/hook"]); // never the disabled endpoint
});
