// The emulator's control plane (/_emulator) as its clients drive it: the tests and the bench. Calls that fail say so.
import type { z } from "zod";
import type { faultRule } from "./faults.ts";
import type { LoggedRequest } from "./request-log.ts";
import type { advanceBody } from "./routes/control.ts";

/** A fault rule as the control plane takes it (its probability defaults to 1). */
export type FaultRuleInput = z.input<typeof faultRule>;

/** A build as the control plane reports it: its resource and where it stands. */
export interface BuildReport {
  id: string;
  resource_type: string;
  status: string;
}

/** Which builds `advanceBuilds` moves, and where to. */
export type BuildsToAdvance = NonNullable<z.input<typeof advanceBody>>;

export interface EmulatorControl {
  /** A control call (`path` under /_emulator): its JSON answer, undefined for 204. */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  /** The service requests logged (the control plane's are not), as `query` selects them (`?method=POST&since=12`). */
  requests(query?: string): Promise<LoggedRequest[]>;
  /** The requests logged since the last take, the log emptied. */
  takeRequests(): Promise<LoggedRequest[]>;
  /** Replaces the injected faults (none: `[]`). */
  setFaults(rules: readonly FaultRuleInput[]): Promise<void>;
  /** A new account (`name`, and `quotas`, `forecasts` as the control plane takes them): its id and API key. */
  createAccount(body: { name: string } & Record<string, unknown>): Promise<{ id: string; api_key: string }>;
  /** The builds in progress. */
  pendingBuilds(): Promise<BuildReport[]>;
  /** Moves builds on: the one `id` names (even while its upstream builds), else every pending one (of `collection`);
   * one step, or on to `to`. Answers the builds moved. */
  advanceBuilds(which: BuildsToAdvance): Promise<BuildReport[]>;
}

/** `url` is the emulator's (without /v1); given as a function, it is read at each call (tests start theirs later). */
export function emulatorControl(url: string | (() => string)): EmulatorControl {
  const base = typeof url === "string" ? () => url : url;
  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${base()}/_emulator${path}`, {
      method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} /_emulator${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  }
  const requests = async (query = "") => (await control("GET", `/requests${query}`)) as LoggedRequest[];
  return {
    control,
    requests,
    async takeRequests() {
      const list = await requests();
      await control("DELETE", "/requests");
      return list;
    },
    async setFaults(rules) {
      await control("PUT", "/faults", { rules });
    },
    createAccount: async (body) => (await control("POST", "/accounts", body)) as { id: string; api_key: string },
    pendingBuilds: async () => ((await control("GET", "/builds")) as { pending: BuildReport[] }).pending,
    advanceBuilds: async (which) => ((await control("POST", "/builds/advance", which)) as { advanced: BuildReport[] }).advanced,
  };
}
