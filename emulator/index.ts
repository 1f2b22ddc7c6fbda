// The emulated audience prediction service, started in-process: `startEmulator()` -> `{ url, apiKey, close }`.
// The entry hands the core every family module (emulator/families); the core itself knows no family.
import type { BuildSettings } from "./builds.ts";
import { createApp } from "./app.ts";
import { FAMILIES } from "./families/index.ts";

export type { BuildMode, BuildSettings, ReadyListener } from "./builds.ts";
export type { EmulatorContext, RouteModule, ResourceReader, UsageCounter } from "./context.ts";
export { ApiError } from "./errors.ts";
export { emulatorControl, type BuildReport, type BuildsToAdvance, type EmulatorControl, type FaultRuleInput } from "./control-client.ts";
export type { LoggedRequest } from "./request-log.ts";
export { signUrl, verifySignedUrl } from "./signing.ts";
export { webhookSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./webhooks.ts";

export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Keep state in this directory (durable on every acknowledged write); in memory without it. */
  dataDir?: string;
  /** The default account's API key; a fresh one without it. */
  apiKey?: string;
  /** Build progression per collection (`scopes`, ...) or `default`: "immediate", "manual", or a duration in ms. */
  builds?: BuildSettings;
  /** Shapes every account's synthetic population: `{ size?, seed?, today? }`. */
  world?: unknown;
}

export interface RunningEmulator {
  /** `http://host:port`, without `/v1` and without a trailing slash. */
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { app, apiKey, close } = createApp({ ...options, families: FAMILIES });
  const host = options.host ?? "127.0.0.1";
  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port ?? 0;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, apiKey, close };
}
