// Which account a request goes to: `audience:apiKey` / `audience:baseUrl` (or AUDIENCE_API_KEY /
// AUDIENCE_BASE_URL) for the default one, `audience:accounts` for named ones, and how often a failed request is sent
// again (`audience:maxRetries` or AUDIENCE_MAX_RETRIES). Credentials live here only: never in inputs, outputs,
// `__provider` or messages.

export interface Credentials {
  apiKey: string;
  baseUrl: string;
}

export interface Settings {
  /** The default account; members may be missing until a resource needs them. */
  default: Partial<Credentials>;
  /** Named accounts from `audience:accounts`. */
  accounts: Record<string, Partial<Credentials>>;
  /** Retries of a request that failed in a way that may pass (a 429 or 503, a dropped connection); DEFAULT_MAX_RETRIES when absent. */
  maxRetries?: number;
  /** Where the named accounts are given, as messages name it: `audience:accounts` unless said (an explicit provider's). */
  accountsGiven?: string;
}

/**
 * Retries of a failed request unless `audience:maxRetries` says otherwise: an unattended `up` rides out a flaky
 * network or a service shedding load, as terraform-provider-aws's 25 do; with the client's backoff (capped at 8 s) a
 * request that keeps failing gives up within a minute. The SDK client alone keeps its own, smaller default.
 */
export const DEFAULT_MAX_RETRIES = 10;
/** The most `audience:maxRetries` takes: more would wait minutes on a service that is down. */
export const MOST_RETRIES = 50;

/** A given `audience:maxRetries` (a number, or text from config or the environment) as a number, or undefined when it is not one it takes. */
export function retriesGiven(value: unknown): number | undefined {
  const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= MOST_RETRIES ? n : undefined;
}

/** `audience:maxRetries` as given, DEFAULT_MAX_RETRIES when not; fails naming the key. */
export function maxRetriesOf(value: unknown, key = "audience:maxRetries"): number {
  if (value === undefined || value === null || value === "") return DEFAULT_MAX_RETRIES;
  const n = retriesGiven(value);
  if (n === undefined) {
    throw new Error(`${key} must be a whole number from 0 to ${MOST_RETRIES} (retries of a failed request; ${DEFAULT_MAX_RETRIES} when unset), got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Reads a config value that may arrive as a string (JSON for structured values) or already parsed. */
function structured(value: unknown, key: string): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new Error(`${key} must be a map of account name to {apiKey, baseUrl}, given as JSON or YAML config`);
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Settings from a config getter taking full keys (`audience:apiKey`) and the environment. */
export function readSettings(get: (key: string) => unknown, env: NodeJS.ProcessEnv = process.env): Settings {
  const accounts: Settings["accounts"] = {};
  const raw = get("audience:accounts");
  const retries = get("audience:maxRetries");
  if (raw !== undefined && raw !== null && raw !== "") {
    const parsed = structured(raw, "audience:accounts");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error("audience:accounts must be a map of account name to {apiKey, baseUrl}");
    }
    for (const [name, entry] of Object.entries(parsed as Record<string, unknown>)) {
      const e = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>;
      accounts[name] = { apiKey: text(e.apiKey), baseUrl: text(e.baseUrl) };
    }
  }
  return {
    default: {
      apiKey: text(get("audience:apiKey")) ?? text(env.AUDIENCE_API_KEY),
      baseUrl: text(get("audience:baseUrl")) ?? text(env.AUDIENCE_BASE_URL),
    },
    accounts,
    maxRetries: retries === undefined || retries === null || retries === ""
      ? maxRetriesOf(env.AUDIENCE_MAX_RETRIES, "AUDIENCE_MAX_RETRIES")
      : maxRetriesOf(retries),
  };
}

/** Why `account` cannot be used, or undefined when it can be named. */
export function unknownAccount(settings: Settings, account: string): string | undefined {
  if (account in settings.accounts) return undefined;
  const known = Object.keys(settings.accounts);
  const given = settings.accountsGiven ?? "audience:accounts";
  return known.length === 0
    ? `names account "${account}" but ${given} is not set`
    : `names account "${account}", which ${given} does not define (defined: ${known.join(", ")})`;
}

/** The credentials of a named account, or of the default one. Fails naming the config to set. */
export function credentialsFor(settings: Settings, account?: string): Credentials {
  if (account !== undefined) {
    const problem = unknownAccount(settings, account);
    if (problem) throw new Error(`account: ${problem}`);
    const entry = settings.accounts[account] ?? {};
    const missing = (["apiKey", "baseUrl"] as const).filter((k) => entry[k] === undefined);
    if (missing.length > 0) throw new Error(`${missing.map((k) => `audience:accounts.${account}.${k}`).join(" and ")} ${missing.length === 1 ? "is" : "are"} not set`);
    return entry as Credentials;
  }
  const { apiKey, baseUrl } = settings.default;
  if (apiKey === undefined) throw new Error("no API key: set audience:apiKey (as a secret) or AUDIENCE_API_KEY");
  if (baseUrl === undefined) throw new Error("no service URL: set audience:baseUrl or AUDIENCE_BASE_URL");
  return { apiKey, baseUrl };
}
