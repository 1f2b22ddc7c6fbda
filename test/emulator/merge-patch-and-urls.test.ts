// The emulator held to the spec where it drifted from it: a merge patch of an account's free-form `branding` is
// RFC 7396 all the way down, and a webhook URL holding line breaks is refused, not stored with them removed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulator, type Client, type Json } from "./helpers.ts";

let api: Client;
beforeAll(async () => {
  api = await emulator();
});
afterAll(() => api.close());

describe("PATCH /accounts/{id} of branding", () => {
  it("removes the member a null names and keeps the others; a null branding removes it", async () => {
    const { body: current } = await api.get("/v1/accounts/current");
    const path = `/v1/accounts/${String(current.id)}`;
    expect((await api.patch(path, { branding: { logo: "https://cdn.example/logo.png", color: "#123456" } })).status).toBe(200);
    const patched = await api.patch<Json>(path, { branding: { logo: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.branding).toEqual({ color: "#123456" });
    expect((await api.get(path)).body.branding).toEqual({ color: "#123456" });
    expect(await api.patch<Json>(path, { name: "Renamed" }).then((r) => r.body.branding)).toEqual({ color: "#123456" });
    const cleared = await api.patch<Json>(path, { branding: null });
    expect(cleared.body.branding ?? null).toBeNull();
  });
});

describe("a webhook endpoint's URL", () => {
  it("holding a line break is refused naming url, and nothing is stored", async () => {
    const refused = await api.post<{ errors?: { path: string; message: string }[] }>("/v1/webhook_endpoints", { url: "http://hooks.example/x\r\nX-Evil: 1", enabled_events: ["resource.errored"] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/url.*must be an http\(s\) URL without spaces, line breaks or other control characters/);
    expect((await api.get<unknown[]>("/v1/webhook_endpoints")).body).toEqual([]);
    expect((await api.post("/v1/webhook_endpoints", { url: "http://hooks.example/x", enabled_events: ["resource.errored"] })).status).toBe(201);
  });
});
