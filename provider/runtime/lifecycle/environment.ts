// What a host gives the lifecycle: its settings, a connection per account, and where its words go.
import type { AccountProblem } from "./config-check.ts";
import type { Service } from "./service.ts";
import type { Settings } from "./settings.ts";

/** Where the lifecycle gets its settings and its connection to an account. */
export interface Environment {
  settings(): Settings;
  service(account: string | undefined): Service;
  /** Pause between polls of a build; tests shorten it. Rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Tells the user something they should know about a step (a warning); unheard when absent. */
  report?(message: string): void;
  /** Where a build's status goes as it moves (`Target tgt_1: starting`), for the engine's progress display. */
  progress?(message: string): Promise<void> | void;
  /**
   * Why the account's credentials cannot be used (naming the config key), or undefined; asked by check, so a
   * preview fails where the deploy would. Hosts that check their config themselves (the plugin) leave it out.
   */
  accountProblem?(account: string | undefined): Promise<AccountProblem | undefined>;
}

/**
 * Limits a host may put on one create or update: a plugin gets them from the engine's request; under the dynamic
 * host the timeout comes as an input (STEP_TIMEOUT_KEY) and there is no cancellation; the engine's in-process
 * provider passes both.
 */
export interface StepLimits {
  /** The engine's timeout for the step (`customTimeouts`), in seconds; bounds the wait for a build. */
  timeoutSeconds?: number;
  /** Aborted when the engine cancels the operation: the wait for a build stops. */
  signal?: AbortSignal;
}
