// Which account each resource of a state lives in, resolved as the provider resolves it: the stack's config
// (`Pulumi.<stack>.yaml` beside the program, secure values opened with the passphrase) or `--accounts`, then
// AUDIENCE_API_KEY / AUDIENCE_BASE_URL for the default account. Keys stay here: reports carry names and URLs.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { credentialsFor, readSettings, type Credentials, type Settings } from "pulumi-audience/provider";
import { isObject } from "pulumi-audience/sdk/contract";
import { isDefaultProvider, providerUrn } from "../../engine/providers.ts";
import { PassphraseCrypter } from "../../engine/secrets.ts";
import { urnName, urnType } from "../../engine/urn.ts";
import { settingsOf } from "../../plugin/config.ts";
import { InputError, type LoadedState, type ProviderConfig, type StateResource } from "./states.ts";

/** The name reports give the account a resource without an `account` input lives in. */
export const DEFAULT_ACCOUNT = "default";

export interface AccountTarget {
  /** `default`, the entry of `audience:accounts`, or `provider <name>` for an explicit provider's own account. */
  name: string;
  baseUrl: string;
  /** The stacks whose resources are in it (`project/stack`): what tells one stack's default account from another's. */
  stacks: Set<string>;
  credentials?: Credentials;
  /** Why the account cannot be read (no key, unset variable). */
  problem?: string;
}

const accountsFile = z.record(z.string(), z.strictObject({
  baseUrl: z.url({ error: "must be the service's URL" }),
  apiKey: z.string().min(1).optional(),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "must name an environment variable" }).optional(),
}).refine((e) => (e.apiKey === undefined) !== (e.apiKeyEnv === undefined), { error: "give exactly one of apiKey or apiKeyEnv" }));

export type AccountsFile = Record<string, { baseUrl: string; apiKey?: string; apiKeyEnv?: string }>;

/** Reads `--accounts FILE`: `{"north": {"baseUrl": "...", "apiKeyEnv": "NORTH_KEY"}}` (or `apiKey`). */
export async function readAccountsFile(file: string): Promise<AccountsFile> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new InputError(`--accounts ${file}: ${error instanceof SyntaxError ? "not JSON" : (error as Error).message}`);
  }
  const parsed = accountsFile.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(`--accounts ${file}: ${issue?.path.map(String).join(".") || "(document)"} ${issue?.message ?? "is not valid"}; expected {"<account>": {"baseUrl": "...", "apiKeyEnv": "VARIABLE"}}`);
  }
  return parsed.data;
}

/** An accounts file as `audience:accounts` config: each key read from its variable when named by `apiKeyEnv`. */
export function accountsConfig(file: AccountsFile, env: NodeJS.ProcessEnv): Record<string, { baseUrl: string; apiKey: string | undefined }> {
  return Object.fromEntries(Object.entries(file).map(([name, e]) => [name, { baseUrl: e.baseUrl, apiKey: e.apiKeyEnv !== undefined ? env[e.apiKeyEnv] : e.apiKey }]));
}

/** Opens `{secure: ...}` values anywhere in a config value (Pulumi allows them inside structured config); without a passphrase they are left out. */
function openSecure(value: unknown, crypter: PassphraseCrypter | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => openSecure(v, crypter));
  if (!isObject(value)) return value;
  if (Object.keys(value).length === 1 && typeof value.secure === "string") return crypter?.decrypt(value.secure);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openSecure(v, crypter)]));
}

/** Whether a config value holds a `{secure: ...}` value anywhere. */
function holdsSecure(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSecure);
  if (!isObject(value)) return false;
  return (Object.keys(value).length === 1 && typeof value.secure === "string") || Object.values(value).some(holdsSecure);
}

/**
 * A stack's `audience:` config, what of it stays sealed (secure values without a passphrase; `why` says so), and
 * where it was looked for (`lookedIn`, said beside a problem of the account it names).
 */
interface StackConfig {
  config: Record<string, unknown>;
  why?: string;
  lookedIn: string;
}

/** The `audience:` config of a state's stack (its program's, else the one beside the state), or nothing when neither is found. */
async function stackConfig(state: LoadedState, passphrase: string | undefined): Promise<StackConfig> {
  const candidates = state.configDirs.map((dir) => join(dir, `Pulumi.${state.stack}.yaml`));
  const file = candidates.find((f) => existsSync(f));
  if (file === undefined) {
    const program = state.program !== undefined ? "" : `; no program of project ${state.project ?? "(none)"} above the state or below the current directory`;
    return { config: {}, lookedIn: `config looked for in ${candidates.join(" and ")}: ${candidates.length === 1 ? "it does not exist" : "neither exists"}${program}` };
  }
  const lookedIn = `config read from ${file}`;
  let doc: unknown;
  try {
    // Loaded only for a stack that keeps its config beside the state: most fleets pass --accounts.
    const { parse } = await import("yaml");
    doc = parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new InputError(`${file}: not valid YAML (${(error as Error).message})`);
  }
  if (!isObject(doc) || !isObject(doc.config)) return { config: {}, lookedIn };
  let crypter: PassphraseCrypter | undefined;
  if (typeof doc.encryptionsalt === "string" && passphrase !== undefined) {
    try {
      crypter = await PassphraseCrypter.open(passphrase, doc.encryptionsalt);
    } catch (error) {
      throw new InputError(`${file}: ${(error as Error).message}`);
    }
  }
  const config: Record<string, unknown> = {};
  const sealed: string[] = [];
  for (const [key, value] of Object.entries(doc.config)) {
    if (!key.startsWith("audience:")) continue;
    config[key] = openSecure(value, crypter);
    if (!crypter && holdsSecure(value)) sealed.push(key);
  }
  if (sealed.length === 0) return { config, lookedIn };
  return { config, lookedIn, why: `${sealed.join(", ")} in ${file} ${sealed.length === 1 ? "is" : "are"} encrypted and no passphrase opens ${sealed.length === 1 ? "it" : "them"}: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE)` };
}

/** `audience:accounts` as config holds it: a map, or its JSON text (a secure value is one string). */
function structuredAccounts(value: unknown): Record<string, unknown> {
  if (typeof value !== "string") return isObject(value) ? value : {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function identity(credentials: Credentials): string {
  return createHash("sha256").update(credentials.baseUrl).update("\0").update(credentials.apiKey).digest("hex");
}

/** The accounts of one state's resources: each distinct one, and the one of each resource. */
export interface StateAccounts {
  targets: Set<AccountTarget>;
  targetOf(resource: StateResource): AccountTarget;
}

/**
 * The accounts of the states' resources, one state at a time (so that an account is read while the next states are
 * parsed). A resource's account is found by the native provider that manages it (whose recorded config holds the
 * credentials, as the plugin takes them; the state's config for a dynamic one) and its account's name; accounts
 * reached with the same key and URL, in this state or an earlier one, are one target.
 */
export function accountResolver(file: AccountsFile | undefined, passphrase: string | undefined, env: NodeJS.ProcessEnv = process.env): { add(state: LoadedState): Promise<StateAccounts> } {
  const byIdentity = new Map<string, AccountTarget>();
  // The accounts `--accounts` gives, their keys read from the environment once.
  const given = accountsConfig(file ?? {}, env);
  return {
    async add(state) {
      // By provider, then account name: a state's resources share a few of each, and looking them up builds no key.
      const byProvider = new Map<ProviderConfig | undefined, Map<string, AccountTarget>>();
      const targets = new Set<AccountTarget>();
      const targetOf = (resource: StateResource) => byProvider.get(resource.provider)!.get(resource.account ?? DEFAULT_ACCOUNT)!;
      if (state.resources.length === 0) {
        // A stack that manages nothing yet (a first up whose create failed unrecorded) or only looks resources up:
        // the account its config names is still read for what no stack manages.
        const { config } = await stackConfig(state, passphrase);
        if (config["audience:apiKey"] === undefined) return { targets, targetOf };
        try {
          const credentials = credentialsFor(withAccounts(readSettings((key) => config[key], env), given));
          const target = byIdentity.get(identity(credentials)) ?? { name: DEFAULT_ACCOUNT, baseUrl: credentials.baseUrl, credentials, stacks: new Set() };
          byIdentity.set(identity(credentials), target);
          target.stacks.add(state.project === undefined ? state.stack : `${state.project}/${state.stack}`);
          targets.add(target);
        } catch {
          // Config that names no usable account is no account to read.
        }
        return { targets, targetOf };
      }
      const dynamic = state.resources.some((r) => r.provider === undefined);
      const { config, why: sealedConfig, lookedIn }: Partial<StackConfig> & Pick<StackConfig, "config"> = dynamic ? await stackConfig(state, passphrase) : { config: {} };
      const named = { ...structuredAccounts(config["audience:accounts"]), ...given };
      const stackSettings = withAccounts(readSettings((key) => (key === "audience:accounts" ? named : config[key]), env), given);
      for (const resource of state.resources) {
        const { provider } = resource;
        const name = resource.account ?? DEFAULT_ACCOUNT;
        let ofProvider = byProvider.get(provider);
        if (!ofProvider) byProvider.set(provider, (ofProvider = new Map()));
        if (ofProvider.has(name)) continue;
        // An explicit provider's own account is named as the provider, not as the stack's default account.
        const providerAt = provider && providerUrn(provider.ref);
        const explicit = providerAt !== undefined && !isDefaultProvider({ urn: providerAt, type: urnType(providerAt) });
        const label = name === DEFAULT_ACCOUNT && explicit ? `provider ${urnName(providerAt)}` : name;
        // A native resource's provider records its configuration; `--accounts` still names accounts' keys.
        const settings = provider ? withAccounts(settingsOf(provider.config, env), given) : stackSettings;
        let target: AccountTarget;
        try {
          const credentials = credentialsFor(settings, name === DEFAULT_ACCOUNT ? undefined : name);
          const id = identity(credentials);
          target = byIdentity.get(id) ?? { name: label, baseUrl: credentials.baseUrl, credentials, stacks: new Set() };
          byIdentity.set(id, target);
        } catch (error) {
          const variable = file?.[name]?.apiKeyEnv;
          const sealed = provider?.sealed.map((s) => `${s.path} of ${urnName(providerUrn(provider.ref))} (${s.reason})`).join("; ");
          // A dynamic resource's account is named by its stack's config: where that was looked for is said with it.
          const problem = variable !== undefined && !env[variable] ? `${variable} is not set (apiKeyEnv of account ${name} in --accounts)`
            : sealed ? `the provider's configuration cannot be read: ${sealed}` : !provider && sealedConfig ? sealedConfig
            : !provider && lookedIn ? `${(error as Error).message} (${lookedIn})` : (error as Error).message;
          const baseUrl = settings.accounts[name]?.baseUrl ?? (name === DEFAULT_ACCOUNT ? settings.default.baseUrl : undefined) ?? "";
          target = { name: label, baseUrl, problem, stacks: new Set() };
        }
        target.stacks.add(state.project === undefined ? state.stack : `${state.project}/${state.stack}`);
        ofProvider.set(name, target);
        targets.add(target);
      }
      return { targets, targetOf };
    },
  };
}

/** Settings whose accounts `--accounts` gives take them from there; its entry `default` is the default account. */
function withAccounts(settings: Settings, given: Record<string, { baseUrl: string; apiKey: string | undefined }>): Settings {
  const { [DEFAULT_ACCOUNT]: own, ...named } = given;
  return { ...settings, default: own ?? settings.default, accounts: { ...settings.accounts, ...named } };
}

/** Whether an account falls in shard `index` (1-based) of `count`: the same on every machine and every day. */
export function inShard(target: Pick<AccountTarget, "name" | "baseUrl" | "credentials">, index: number, count: number): boolean {
  // By its credentials where it has them: every stack's default account is named `default`, often at one URL.
  const digest = createHash("sha256").update(target.credentials ? identity(target.credentials) : `${target.name}\0${target.baseUrl}`).digest();
  return digest.readUInt32BE(0) % count === index - 1;
}
