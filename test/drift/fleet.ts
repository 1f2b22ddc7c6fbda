// A fleet on one emulator for the drift tests: the default account as parent, sub-accounts `north` and `south`,
// and an account whose only key has expired; stacks made through the provider's own check and create.
import { fileURLToPath } from "node:url";
import type { LoggedRequest } from "pulumi-audience/emulator";
import { clientService, createLifecycle, credentialsFor, type Settings } from "pulumi-audience/provider";
import { providerFamilies } from "../../provider/runtime/families/index.ts";
import { SECRET_SIG, SIG_KEY } from "../../provider/protocol/markers.ts";
import { audience as cli, type CliResult } from "../cli/helpers.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export type Props = Record<string, unknown>;

export interface Account {
  name: string;
  id: string;
  apiKey: string;
}

export type { LoggedRequest };

export interface Fleet {
  url: string;
  parent: Account;
  north: Account;
  south: Account;
  /** Its only key expired yesterday. */
  stale: Account;
  api(account: Account, method: string, path: string, body?: unknown): Promise<unknown>;
  /** A call of the emulator's control plane (`path` under /_emulator). */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  /** The requests logged since a mark, control calls included. */
  requests(since?: number): Promise<LoggedRequest[]>;
  mark(): Promise<number>;
  /** Settings naming north, south and stale (with a key still valid) as accounts, the parent as default: for setting up. */
  settings: Settings;
  close(): Promise<void>;
}

async function call(url: string, method: string, path: string, key: string | undefined, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { "content-type": method === "PATCH" ? "application/merge-patch+json" : "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export async function startFleet(): Promise<Fleet> {
  const { emulatorControl, startEmulator } = await import("pulumi-audience/emulator");
  const emulator = await startEmulator({ port: 0 });
  const { control, createAccount, requests: logged } = emulatorControl(emulator.url);
  const parentId = ((await call(emulator.url, "GET", "/accounts/current", emulator.apiKey)) as { id: string }).id;
  const parent: Account = { name: "parent", id: parentId, apiKey: emulator.apiKey };
  const account = async (name: string, parentIdOf?: string): Promise<Account> => {
    const made = await createAccount({ name, ...(parentIdOf ? { parent_id: parentIdOf } : {}) });
    return { name, id: made.id, apiKey: made.api_key };
  };
  const north = await account("north", parentId);
  const south = await account("south", parentId);
  const staleAccount = await account("stale");
  const expired = (await control("POST", `/accounts/${staleAccount.id}/keys`, { expires_at: new Date(Date.now() - 86_400_000).toISOString() })) as { api_key: string };
  const stale = { ...staleAccount, apiKey: expired.api_key };
  const requests = (since = 0) => logged(`?since=${since}`);
  return {
    url: emulator.url,
    parent,
    north,
    south,
    stale,
    api: (a, method, path, body) => call(emulator.url, method, path, a.apiKey, body),
    control,
    requests,
    async mark() {
      return (await requests()).at(-1)?.seq ?? 0;
    },
    settings: {
      default: { apiKey: parent.apiKey, baseUrl: emulator.url },
      accounts: Object.fromEntries([north, south, staleAccount].map((a) => [a.name, { apiKey: a.apiKey, baseUrl: emulator.url }])),
    },
    close: () => emulator.close(),
  };
}

export interface Declared {
  name: string;
  collection: string;
  props: Props;
}

/**
 * A `pulumi stack export` document of resources created through the provider's own check and create: secrets as
 * `--show-secrets` writes them, or encrypted by a secrets provider this machine cannot open.
 */
export async function exportStack(settings: Settings, stack: string, declared: Declared[], secrets: "shown" | "sealed"): Promise<{ document: Props; ids: Record<string, string> }> {
  const lifecycle = createLifecycle({ settings: () => settings, service: (account) => clientService(credentialsFor(settings, account)), sleep: () => Promise.resolve() });
  const ids: Record<string, string> = {};
  const resources: Props[] = [{ urn: `urn:pulumi:${stack}::fleet::pulumi:pulumi:Stack::fleet-${stack}`, type: "pulumi:pulumi:Stack", custom: false }];
  for (const d of declared) {
    const kind = providerFamilies[d.collection]!;
    const checked = await lifecycle.check({}, { ...d.props, __kind: d.collection });
    if (checked.failures?.length) throw new Error(`${d.name}: ${JSON.stringify(checked.failures)}`);
    const created = await lifecycle.create(checked.inputs);
    // Each credential secret on its own (`options.password`), as the provider records it.
    const hide = (values: Props, prefix = ""): Props => Object.fromEntries(Object.entries(values).map(([k, v]) => {
      const path = `${prefix}${k}`;
      if (kind.secretOutputs.includes(path)) return [k, { [SIG_KEY]: SECRET_SIG, ...(secrets === "shown" ? { plaintext: JSON.stringify(v) } : { ciphertext: "AAABAJ7zd1pTp/wLmSDq" }) }];
      const holds = typeof v === "object" && v !== null && !Array.isArray(v) && kind.secretOutputs.some((p) => p.startsWith(`${path}.`));
      return [k, holds ? hide(v as Props, `${path}.`) : v];
    }));
    const type = `pulumi-nodejs:dynamic/audience:${kind.family.className}`;
    resources.push({ urn: `urn:pulumi:${stack}::fleet::${type}::${d.name}`, custom: true, type, id: created.id, inputs: hide({ ...checked.inputs, __provider: "exports.handler = ..." }), outputs: hide(created.outs ?? {}) });
    ids[d.name] = created.id;
  }
  const document = {
    version: 3,
    deployment: { manifest: { time: new Date().toISOString(), magic: "", version: "v3.270.0" }, secrets_providers: { type: "service", state: { url: "https://api.pulumi.com" } }, resources },
  };
  return { document, ids };
}

/** `audience <args>` in a child process, off a terminal. */
export function audience(args: string[], env: NodeJS.ProcessEnv = {}, cwd = REPO_ROOT): Promise<CliResult> {
  return cli(args, { env, cwd, timeoutMs: 120_000 });
}
