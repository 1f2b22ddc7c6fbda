// Whether an account's credentials work, asked once per process and account before the first resource's check:
// a preview then fails where the deploy would, naming the config key to fix (`audience:apiKey`,
// `audience:baseUrl`, `audience:accounts.<name>.apiKey`). Pulumi's dynamic-provider host answers CheckConfig as
// unimplemented, so this runs in the provider's own check, which every host calls at preview.
import { createHash } from "node:crypto";
import { AudienceApiError, AudienceClient, AudienceError, AuthenticationError, ConnectionError, RateLimitedError, ServerError, TimeoutError } from "pulumi-audience/sdk/client";
import { families } from "pulumi-audience/sdk/contract";
import { FAILURE_CODES } from "./failure.ts";
import { DEFAULT_MAX_RETRIES, type Credentials, type Settings } from "./settings.ts";

/** Why an account's credentials cannot be used, naming the config key, and the failure's code (failure.ts). */
export interface AccountProblem {
  reason: string;
  code: string;
  /** Which of the account's credentials is at fault. */
  member: "apiKey" | "baseUrl";
}

/**
 * How long one attempt of the check's request may take: a service that does not answer in this time counts as
 * unreachable. The client's own retries stand in for a transient failure (a 429 or 503, a dropped connection).
 */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Whether a failed check reached the service (a 429 or 5xx, a connection dropped once the request was sent): a
 * transient fault the deploy itself would ride out, so the check asks again with the deploy's whole retry budget.
 * A URL where nothing listens, or that never answers, fails after the client's few retries instead.
 */
function reachedService(error: unknown): boolean {
  return error instanceof RateLimitedError || error instanceof ServerError
    || (error instanceof ConnectionError && !error.beforeSend && !(error instanceof TimeoutError));
}

/** What a user writes as the service's URL. */
const URL_HINT = "give the service's URL, such as https://<service>/v1";

/** How messages name an account's credentials: where the user set them. */
export type CredentialNames = (account: string | undefined) => { apiKey: string; baseUrl: string };

/** As stack config (or the environment) sets them: every dynamic resource's, and the default provider's. */
export const stackConfigNames: CredentialNames = (account) =>
  account === undefined
    ? { apiKey: "audience:apiKey (or AUDIENCE_API_KEY)", baseUrl: "audience:baseUrl (or AUDIENCE_BASE_URL)" }
    : { apiKey: `audience:accounts.${account}.apiKey`, baseUrl: `audience:accounts.${account}.baseUrl` };

/** Why the URL cannot address the service, or undefined when it can. */
function badUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `uses ${url.protocol.slice(0, -1)}, not http or https`;
  if (url.search || url.hash) return "carries a query string or fragment";
  return undefined;
}

/** What is wrong with the account's credentials without asking the service, or undefined. */
function credentialProblem(settings: Settings, account: string | undefined, names: CredentialNames): AccountProblem | undefined {
  const keys = names(account);
  const entry = account === undefined ? settings.default : settings.accounts[account];
  if (entry === undefined) return undefined; // an unknown account name is the resource's own failure
  const config = (member: AccountProblem["member"], reason: string): AccountProblem => ({ reason, code: FAILURE_CODES.config, member });
  if (entry.apiKey === undefined) return config("apiKey", `${keys.apiKey} is not set or is empty: set it as a secret`);
  if (entry.baseUrl === undefined) return config("baseUrl", `${keys.baseUrl} is not set: set the service's URL`);
  const url = badUrl(entry.baseUrl);
  if (url) return config("baseUrl", `${keys.baseUrl} ${JSON.stringify(entry.baseUrl)} ${url}: expected the service's http(s) URL`);
  return undefined;
}

/** The account each key reaches at each URL, asked once per process (keyed by a digest, not the key). */
const accountIds = new Map<string, Promise<string | undefined>>();
const accountIdKey = ({ apiKey, baseUrl }: Credentials) => createHash("sha256").update(`${baseUrl}\n${apiKey}`).digest("hex");

/**
 * One request with the account's key: undefined when the service answers as the service answers there (the key's
 * own account), else why not. Any other answer (no such route, not an account, an error) means the URL does not
 * reach the service, or the service cannot serve the deploy now: a preview that passed would promise an up that fails.
 */
async function serviceProblem(settings: Settings, account: string | undefined, names: CredentialNames): Promise<AccountProblem | undefined> {
  const keys = names(account);
  const { apiKey, baseUrl } = (account === undefined ? settings.default : settings.accounts[account]) as { apiKey: string; baseUrl: string };
  const client = new AudienceClient({ apiKey, baseUrl, timeoutMs: CHECK_TIMEOUT_MS });
  const patient = new AudienceClient({ apiKey, baseUrl, timeoutMs: CHECK_TIMEOUT_MS, retry: { maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES } });
  const at = client.baseUrl.replace(/\/$/, "");
  const problem = (member: AccountProblem["member"], reason: string, code: string = FAILURE_CODES.config): AccountProblem => ({ reason: `${keys[member]}: ${reason}`, code, member });
  const ask = (by: AudienceClient) => by.request({ method: "GET", path: "/accounts/current" });
  try {
    const answer = await ask(client).catch((error: unknown) => (reachedService(error) ? ask(patient) : Promise.reject(error)));
    const account = families.accounts.response.safeParse(answer);
    if (account.success) {
      // What accountIdOf would ask again when the account a resource names changes.
      accountIds.set(accountIdKey({ apiKey, baseUrl }), Promise.resolve(account.data.id));
      return undefined;
    }
    return problem("baseUrl", `${at} is not the service: GET /accounts/current answered no account; ${URL_HINT}`);
  } catch (error) {
    if (error instanceof AuthenticationError) {
      return { ...problem("apiKey", `the service at ${at} refused the key (${error.code ?? error.status})`), code: error.code ?? "INVALID_AUTHORIZATION" };
    }
    if (error instanceof RateLimitedError || error instanceof ServerError) {
      return problem("baseUrl", `the service at ${at} cannot serve the deploy now: GET /accounts/current answered ${error.status} ${error.code ?? "error"} after ${client.retry.maxRetries + 1 + patient.retry.maxRetries} retries`, FAILURE_CODES.unreachable);
    }
    if (error instanceof AudienceApiError) {
      return problem("baseUrl", `${at} is not the service: GET /accounts/current answered ${error.status} ${error.code ?? "error"}; ${URL_HINT}`);
    }
    const cause = error instanceof AudienceError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
    return problem("baseUrl", `the service at ${at} cannot be reached (${cause})`, FAILURE_CODES.unreachable);
  } finally {
    await Promise.all([client.close(), patient.close()]);
  }
}

/**
 * The id of the account a key reaches at a URL, or undefined when the service does not say (a key it refuses, as a
 * rotated one is; a URL that does not answer).
 */
export function accountIdOf({ apiKey, baseUrl }: Credentials): Promise<string | undefined> {
  const key = accountIdKey({ apiKey, baseUrl });
  let found = accountIds.get(key);
  if (!found) {
    const client = new AudienceClient({ apiKey, baseUrl, timeoutMs: CHECK_TIMEOUT_MS });
    found = client.request({ method: "GET", path: "/accounts/current" })
      .then((answer) => { const parsed = families.accounts.response.safeParse(answer); return parsed.success ? parsed.data.id : undefined; }, () => undefined)
      .finally(() => client.close());
    accountIds.set(key, found);
  }
  return found;
}

/**
 * Checks of each account's credentials, each made once and remembered until `clear` (new settings). Answers why
 * the account cannot be used, or undefined, naming the credentials as `names` does.
 */
export function accountChecks(settings: () => Settings, names: CredentialNames = stackConfigNames): { problem(account: string | undefined): Promise<AccountProblem | undefined>; clear(): void } {
  const answers = new Map<string, Promise<AccountProblem | undefined>>();
  return {
    problem(account) {
      const key = account ?? "";
      let answer = answers.get(key);
      if (!answer) {
        const current = settings();
        const local = credentialProblem(current, account, names);
        answer = local !== undefined || (account !== undefined && !(account in current.accounts)) ? Promise.resolve(local) : serviceProblem(current, account, names);
        answers.set(key, answer);
      }
      return answer;
    },
    clear: () => answers.clear(),
  };
}
