// Whether an account's credentials work, asked once per process and account before the first resource's check:
// a preview then fails where the deploy would, naming the config key to fix (`audience:apiKey`,
// `audience:baseUrl`, `audience:accounts.<name>.apiKey`). Pulumi's dynamic-provider host answers CheckConfig as
// unimplemented, so this runs in the provider's own check, which every host calls at preview.
import { AudienceApiError, AudienceClient, AudienceError, AuthenticationError } from "pulumi-audience/sdk/client";
import { FAILURE_CODES } from "./failure.ts";
import type { Settings } from "./settings.ts";

/** Why an account's credentials cannot be used, naming the config key, and the failure's code (failure.ts). */
export interface AccountProblem {
  reason: string;
  code: string;
}

/** How long the one request of a check may take: a service that does not answer in this time counts as unreachable. */
const CHECK_TIMEOUT_MS = 10_000;

/** The config keys of an account's credentials, as a user sets them. */
function keysOf(account: string | undefined): { apiKey: string; baseUrl: string } {
  return account === undefined
    ? { apiKey: "audience:apiKey (or AUDIENCE_API_KEY)", baseUrl: "audience:baseUrl (or AUDIENCE_BASE_URL)" }
    : { apiKey: `audience:accounts.${account}.apiKey`, baseUrl: `audience:accounts.${account}.baseUrl` };
}

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
function credentialProblem(settings: Settings, account: string | undefined): string | undefined {
  const keys = keysOf(account);
  const entry = account === undefined ? settings.default : settings.accounts[account];
  if (entry === undefined) return undefined; // an unknown account name is the resource's own failure
  if (entry.apiKey === undefined) return `${keys.apiKey} is not set or is empty: set it as a secret`;
  if (entry.baseUrl === undefined) return `${keys.baseUrl} is not set: set the service's URL`;
  const url = badUrl(entry.baseUrl);
  if (url) return `${keys.baseUrl} ${JSON.stringify(entry.baseUrl)} ${url}: expected the service's http(s) URL`;
  return undefined;
}

/** One request with the account's key: undefined when the service answers as the account, else why not. */
async function serviceProblem(settings: Settings, account: string | undefined): Promise<AccountProblem | undefined> {
  const keys = keysOf(account);
  const { apiKey, baseUrl } = (account === undefined ? settings.default : settings.accounts[account]) as { apiKey: string; baseUrl: string };
  const client = new AudienceClient({ apiKey, baseUrl, timeoutMs: CHECK_TIMEOUT_MS, retry: { maxRetries: 0 } });
  try {
    await client.request({ method: "GET", path: "/accounts/current" });
    return undefined;
  } catch (error) {
    if (error instanceof AuthenticationError) {
      return { reason: `${keys.apiKey}: the service at ${baseUrl} refused the key (${error.code ?? error.status})`, code: error.code ?? "INVALID_AUTHORIZATION" };
    }
    // Any other answer means the service is there: the resources' own requests report what is wrong.
    if (error instanceof AudienceApiError) return undefined;
    const cause = error instanceof AudienceError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
    return { reason: `${keys.baseUrl}: the service at ${baseUrl} cannot be reached (${cause})`, code: FAILURE_CODES.unreachable };
  } finally {
    await client.close();
  }
}

/**
 * Checks of each account's credentials, each made once and remembered until `clear` (new settings). Answers why
 * the account cannot be used, or undefined.
 */
export function accountChecks(settings: () => Settings): { problem(account: string | undefined): Promise<AccountProblem | undefined>; clear(): void } {
  const answers = new Map<string, Promise<AccountProblem | undefined>>();
  return {
    problem(account) {
      const key = account ?? "";
      let answer = answers.get(key);
      if (!answer) {
        const current = settings();
        const local = credentialProblem(current, account);
        answer = local !== undefined || (account !== undefined && !(account in current.accounts))
          ? Promise.resolve(local === undefined ? undefined : { reason: local, code: FAILURE_CODES.config })
          : serviceProblem(current, account);
        answers.set(key, answer);
      }
      return answer;
    },
    clear: () => answers.clear(),
  };
}
