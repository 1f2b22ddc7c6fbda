// The provider's configuration: `audience:apiKey`, `audience:baseUrl`, `audience:accounts` and `audience:maxRetries`, given as stack
// config (the default provider) or as a provider resource's inputs (explicit providers). The engine sends them
// as `audience:config:<key>` variables (objects JSON-encoded) and, in newer engines, as `args`.
import { validate } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import { differentAccounts } from "../runtime/lifecycle/account-move.ts";
import { accountChecks, stackConfigNames, type CredentialNames } from "../runtime/lifecycle/config-check.ts";
import { DEFAULT_MAX_RETRIES, MOST_RETRIES, readSettings, retriesGiven, type Settings } from "../runtime/lifecycle/settings.ts";
import { isObject, pathsOverlap, unknownPaths, type Props } from "../runtime/lifecycle/shape.ts";
import { PACKAGE } from "./tokens.ts";

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://<service>/v1" });
const apiKey = z.string({ error: "must be a string" }).min(1, { error: "must not be empty" });
const retriesAllowed = `must be a whole number from 0 to ${MOST_RETRIES} (${DEFAULT_MAX_RETRIES} when unset)`;
// Config variables arrive as text ("5"), provider inputs as numbers: both read as settings read them.
const maxRetries = z.unknown().refine((value) => retriesGiven(value) !== undefined, { error: retriesAllowed });

/** The configuration a provider takes, in program (camelCase) form. */
const configSchema = z.strictObject({
  apiKey: apiKey.optional(),
  baseUrl: httpUrl.optional(),
  accounts: z.record(z.string(), z.strictObject({ apiKey: apiKey.optional(), baseUrl: httpUrl.optional() }), {
    error: "must be a map of account name to {apiKey, baseUrl}",
  }).optional(),
  maxRetries: maxRetries.optional(),
  // Set by the engine on provider resources, not by users.
  version: z.string().optional(),
  pluginDownloadURL: z.string().optional(),
});

/** Config values as the engine sends provider inputs: strings, objects possibly JSON-encoded. */
function decoded(config: Props): Props {
  const out: Props = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined || value === null || value === "") continue;
    if (key === "accounts" && typeof value === "string") {
      try {
        out[key] = JSON.parse(value);
      } catch {
        out[key] = value; // reported by the schema, naming the key
      }
    } else out[key] = value;
  }
  return out;
}

/**
 * How a provider's messages name its settings: the default provider's as the stack config that sets them
 * (`audience:baseUrl`), an explicit provider's as the arguments the program gave it (`baseUrl of provider "north"`).
 */
export interface ProviderNaming {
  key(path: string): string;
  credentials: CredentialNames;
  /** How to give a missing credential of the default account. */
  give: { apiKey: string; baseUrl: string };
}

/** The naming of the provider at `urn` (Pulumi names default providers `default` or `default_<version>`). */
export function providerNaming(urn: string | undefined): ProviderNaming {
  const name = urn?.split("::").at(-1) ?? "";
  if (name === "" || /^default(_|$)/.test(name)) {
    return {
      key: (path) => `${PACKAGE}:${path}`,
      credentials: stackConfigNames,
      give: {
        apiKey: `set it with \`pulumi config set --secret ${PACKAGE}:apiKey <KEY>\` or set AUDIENCE_API_KEY`,
        baseUrl: `set it with \`pulumi config set ${PACKAGE}:baseUrl https://<service>/v1\` or set AUDIENCE_BASE_URL`,
      },
    };
  }
  const key = (path: string) => `${path} of provider ${JSON.stringify(name)}`;
  return {
    key,
    credentials: (account) => (account === undefined ? { apiKey: key("apiKey"), baseUrl: key("baseUrl") } : { apiKey: key(`accounts.${account}.apiKey`), baseUrl: key(`accounts.${account}.baseUrl`) }),
    give: { apiKey: "give the provider an apiKey (a secret) or set AUDIENCE_API_KEY where it runs", baseUrl: "give the provider a baseUrl or set AUDIENCE_BASE_URL where it runs" },
  };
}

/** What is wrong with a provider's configuration, each failure naming its setting as `naming` does. */
export function configFailures(config: Props, naming: ProviderNaming): { property: string; reason: string }[] {
  const result = validate(configSchema, decoded(config));
  if (result.ok) return [];
  return result.errors.map((e) => ({ property: e.path, reason: `${naming.key(e.path)} ${e.message}` }));
}

/**
 * What CheckConfig reports of a provider's inputs: what is wrong with them (members not known yet, in a preview,
 * are decided later), each named account's missing credentials, and the default account's when neither they nor
 * the environment give them (a provider of named accounts only needs none).
 */
export function checkedConfig(config: Props, env: NodeJS.ProcessEnv, naming: ProviderNaming): { property: string; reason: string }[] {
  const unknown = unknownPaths(config);
  const failures = configFailures(config, naming).filter((f) => !unknown.some((u) => pathsOverlap(u, f.property)));
  if (failures.length > 0 || unknown.length > 0) return failures;
  const settings = settingsOf(config, env);
  // A named account has no fallback in the environment: each needs both members.
  if (config.accounts !== undefined) {
    return Object.entries(settings.accounts).flatMap(([name, entry]) => [
      ...(entry.apiKey === undefined ? [{ property: `accounts.${name}.apiKey`, reason: `${naming.key(`accounts.${name}.apiKey`)} is missing: give the account an apiKey (a secret)` }] : []),
      ...(entry.baseUrl === undefined ? [{ property: `accounts.${name}.baseUrl`, reason: `${naming.key(`accounts.${name}.baseUrl`)} is missing: give the account the service's URL` }] : []),
    ]);
  }
  const { apiKey, baseUrl } = settings.default;
  return [
    ...(apiKey === undefined ? [{ property: "apiKey", reason: `${naming.key("apiKey")} is missing: ${naming.give.apiKey}` }] : []),
    ...(baseUrl === undefined ? [{ property: "baseUrl", reason: `${naming.key("baseUrl")} is missing: ${naming.give.baseUrl}` }] : []),
  ];
}

/**
 * What the service says of a provider's valid configuration: each account it gives (the default one when it has
 * credentials, each named one) asked once with its key, so that a preview fails where the deploy would (a URL that
 * is not the service, a key it refuses), naming the member to fix. Asked only once the configuration is known.
 */
export async function serviceFailures(config: Props, env: NodeJS.ProcessEnv, naming: ProviderNaming): Promise<{ property: string; reason: string }[]> {
  if (unknownPaths(config).length > 0) return [];
  const settings = settingsOf(config, env);
  const checks = accountChecks(() => settings, naming.credentials);
  const accounts: (string | undefined)[] = [
    ...(settings.default.apiKey !== undefined || settings.default.baseUrl !== undefined || config.accounts === undefined ? [undefined] : []),
    ...Object.keys(settings.accounts),
  ];
  const answers = await Promise.all(accounts.map(async (account) => ({ account, problem: await checks.problem(account) })));
  return answers.flatMap(({ account, problem }) => problem ? [{ property: account === undefined ? problem.member : `accounts.${account}.${problem.member}`, reason: problem.reason }] : []);
}

/**
 * The config members whose change moves the provider's resources to another account, each then replaced: its key
 * or URL (or an entry of `accounts`) reaching a different account than before, not the same one reached anew.
 */
export async function movedAccounts(olds: Props, news: Props, changed: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  if (unknownPaths(news).length > 0) return [];
  const [before, after] = [settingsOf(olds, env), settingsOf(news, env)];
  const moved: string[] = [];
  if (await differentAccounts(before.default, after.default)) {
    const given = changed.filter((key) => key === "apiKey" || key === "baseUrl");
    moved.push(...(given.length > 0 ? given : ["apiKey"]));
  }
  const named = Object.keys(after.accounts).filter((name) => name in before.accounts);
  const movedNamed = await Promise.all(named.map((name) => differentAccounts(before.accounts[name], after.accounts[name])));
  if (movedNamed.some(Boolean)) moved.push("accounts");
  return moved;
}

/** The configuration of a Configure call: its `args` when the engine sends them, else its variables. */
export function configOf(variables: Record<string, string>, args: Props | undefined): Props {
  if (args && Object.keys(args).length > 0) return args;
  const prefix = `${PACKAGE}:config:`;
  const out: Props = {};
  for (const [key, value] of Object.entries(variables)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

/** Settings from a valid configuration, the environment filling what it leaves out. */
export function settingsOf(config: Props, env: NodeJS.ProcessEnv = process.env): Settings {
  const values = decoded(config);
  return readSettings((key) => {
    const name = key.slice(PACKAGE.length + 1);
    return isObject(values) ? values[name] : undefined;
  }, env);
}
