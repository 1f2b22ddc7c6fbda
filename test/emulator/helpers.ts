// Talks to an emulator over real HTTP, as any client would.
import { startEmulator, type EmulatorOptions } from "pulumi-audience/emulator";
import { families } from "pulumi-audience/sdk/contract";
import type { SampleIds } from "../samples.ts";

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export type Json = Record<string, unknown>;

export interface Client {
  url: string;
  apiKey: string;
  call<T = Json>(method: string, path: string, body?: unknown, options?: { key?: string | null; contentType?: string; raw?: string }): Promise<Reply<T>>;
  get<T = Json>(path: string, key?: string): Promise<Reply<T>>;
  post<T = Json>(path: string, body?: unknown, key?: string): Promise<Reply<T>>;
  patch<T = Json>(path: string, body: unknown, key?: string): Promise<Reply<T>>;
  del<T = Json>(path: string, key?: string): Promise<Reply<T>>;
  control<T = Json>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  close(): Promise<void>;
}

export function client(url: string, apiKey: string, close: () => Promise<void> = async () => undefined): Client {
  const call = async <T>(method: string, path: string, body?: unknown,
    options: { key?: string | null; contentType?: string; raw?: string } = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? apiKey : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers["content-type"] = options.contentType ?? (method === "PATCH" ? "application/merge-patch+json" : "application/json");
    const response = await fetch(url + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      // not JSON (CSV and the like): keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  };
  return {
    url, apiKey, call, close,
    get: (path, key) => call("GET", path, undefined, key !== undefined ? { key } : {}),
    post: (path, body, key) => call("POST", path, body, key !== undefined ? { key } : {}),
    patch: (path, body, key) => call("PATCH", path, body, key !== undefined ? { key } : {}),
    del: (path, key) => call("DELETE", path, undefined, key !== undefined ? { key } : {}),
    control: (method, path, body) => call(method, `/_emulator${path}`, body, { key: null }),
  };
}

export async function emulator(options: EmulatorOptions = {}): Promise<Client> {
  const running = await startEmulator(options);
  return client(running.url, running.apiKey, running.close);
}

/** Ids of the seeded classic cohorts and forecast of an account. */
export async function seeded(api: Client, key?: string): Promise<{ leads: string; customers: string; forecast: string | undefined }> {
  const cohorts = (await api.get<Json[]>("/v1/cohorts", key)).body;
  const forecasts = (await api.get<Json[]>("/v1/forecasts", key)).body;
  const byName = (name: string) => String(cohorts.find((c) => c.name === name)?.id);
  return { leads: byName("Leads"), customers: byName("Customers"), forecast: forecasts[0]?.id as string | undefined };
}

export function scopeBody(cohortId: string, forecastId: string, extra: Json = {}): Json {
  return { name: "Adaptive discounting", population: { cohort_ids: [cohortId] }, payload: { forecast_ids: [forecastId] }, preview: true, ...extra };
}

/** What the shared samples (test/samples.ts) name, created through this client in the key's account. */
export function sampleIds(api: Client, key?: string): SampleIds {
  return {
    leads: async () => (await seeded(api, key)).leads,
    async create(collection, body) {
      const path = `/v1/${families[collection].path}`;
      const reply = await api.post<Json>(path, body, key);
      if (reply.status !== 201) throw new Error(`POST ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return String(reply.body.id);
    },
  };
}
