// A Pulumi project on disk: Pulumi.yaml (name, runtime options, main) and the stack's Pulumi.<stack>.yaml config.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { PassphraseCrypter, PassphraseError } from "./secrets.ts";
import { SECRET_SIG, SIG_KEY, type PropertyMap } from "../protocol/values.ts";
import { ProjectError } from "./stack-files.ts";

export { ProjectError } from "./stack-files.ts";

export interface Project {
  dir: string;
  name: string;
  /** The entry point handed to the language runtime: Pulumi.yaml `main`, else "." as the Pulumi CLI does. */
  main: string;
  /** `runtime.options.typescript` (Pulumi's default: true, which loads ts-node). */
  typescript: boolean;
  /** `runtime.options.nodeargs`, split on spaces. */
  nodeArgs: string[];
  /** Config defaults declared in Pulumi.yaml. */
  defaults: Record<string, ConfigValue>;
}

export interface ConfigValue {
  value: unknown;
  secret: boolean;
}

export type StackConfig = Map<string, ConfigValue>;

const STACK_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

function readYaml(path: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ProjectError(`${path}: not valid YAML (${(e as Error).message})`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) throw new ProjectError(`${path}: expected a mapping at the top level`);
  return doc as Record<string, unknown>;
}

export function loadProject(dir: string): Project {
  const root = resolve(dir);
  const file = join(root, "Pulumi.yaml");
  if (!existsSync(file)) throw new ProjectError(`no Pulumi.yaml in ${root}: --cwd must name a Pulumi program's directory`);
  const doc = readYaml(file);
  const name = doc["name"];
  if (typeof name !== "string" || name === "") throw new ProjectError(`${file}: "name" is required (a string)`);
  const runtime = doc["runtime"];
  const runtimeName = typeof runtime === "object" && runtime !== null ? (runtime as Record<string, unknown>)["name"] : runtime;
  if (runtimeName !== "nodejs") throw new ProjectError(`${file}: runtime must be "nodejs" (got ${JSON.stringify(runtimeName)}); the local engine runs Node.js programs only`);
  const options = (typeof runtime === "object" && runtime !== null ? (runtime as Record<string, unknown>)["options"] : undefined) ?? {};
  if (typeof options !== "object") throw new ProjectError(`${file}: runtime.options must be a mapping`);
  const { typescript, nodeargs } = options as Record<string, unknown>;
  if (typescript !== undefined && typeof typescript !== "boolean") throw new ProjectError(`${file}: runtime.options.typescript must be true or false`);
  if (nodeargs !== undefined && typeof nodeargs !== "string") throw new ProjectError(`${file}: runtime.options.nodeargs must be a string`);
  const main = doc["main"];
  if (main !== undefined && typeof main !== "string") throw new ProjectError(`${file}: "main" must be a path relative to the project`);
  const defaults: Record<string, ConfigValue> = {};
  const declared = doc["config"];
  if (declared !== undefined && (typeof declared !== "object" || declared === null)) throw new ProjectError(`${file}: "config" must be a mapping`);
  for (const [key, spec] of Object.entries((declared ?? {}) as Record<string, unknown>)) {
    const full = qualify(key, name);
    if (typeof spec === "object" && spec !== null && !Array.isArray(spec) && ("default" in spec || "value" in spec || "type" in spec)) {
      const s = spec as Record<string, unknown>;
      const value = s["value"] ?? s["default"];
      if (value !== undefined) defaults[full] = { value, secret: s["secret"] === true };
    } else {
      defaults[full] = { value: spec, secret: false };
    }
  }
  return { dir: root, name, main: main ?? ".", typescript: typescript ?? true, nodeArgs: nodeargs ? nodeargs.split(/\s+/).filter(Boolean) : [], defaults };
}

export function checkStackName(stack: string): string {
  if (!STACK_NAME.test(stack)) throw new ProjectError(`stack "${stack}": allowed are letters, digits, "-", "_" and ".", 1 to 100 characters`);
  return stack;
}

/** Config keys without a namespace belong to the project, as in `pulumi config set`. */
export function qualify(key: string, project: string): string {
  if (key === "" || key.startsWith(":") || key.endsWith(":")) throw new ProjectError(`config key "${key}": expected "name" or "namespace:name"`);
  return key.includes(":") ? key : `${project}:${key}`;
}

/** The stack's config file, beside Pulumi.yaml. */
export function stackConfigPath(project: Project, stack: string): string {
  return join(project.dir, `Pulumi.${stack}.yaml`);
}

/** The stacks a `Pulumi.<stack>.yaml` beside Pulumi.yaml configures. */
export function configuredStacks(project: Project): string[] {
  return readdirSync(project.dir).flatMap((file) => /^Pulumi\.(.+)\.ya?ml$/.exec(file)?.[1] ?? []);
}

/** The ciphertext of a `{secure: "v1:..."}` config value, as `pulumi config set --secret` writes it; else undefined. */
function secureText(raw: unknown): string | undefined {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const secure = (raw as Record<string, unknown>)["secure"];
  return Object.keys(raw).length === 1 && typeof secure === "string" ? secure : undefined;
}

function holdsSecure(raw: unknown): boolean {
  if (secureText(raw) !== undefined) return true;
  return typeof raw === "object" && raw !== null && Object.values(raw).some(holdsSecure);
}

/** The stack's config file, secure values decrypted with the salt the file carries; a value holding one is secret. */
export async function loadStackConfig(project: Project, stack: string, passphrase: string | undefined): Promise<{ config: StackConfig; encryptionSalt?: string }> {
  const config: StackConfig = new Map(Object.entries(project.defaults));
  const file = stackConfigPath(project, stack);
  if (!existsSync(file)) return { config };
  const doc = readYaml(file);
  const salt = doc["encryptionsalt"];
  if (salt !== undefined && typeof salt !== "string") throw new ProjectError(`${file}: encryptionsalt must be a string`);
  let crypter: PassphraseCrypter | undefined;
  for (const [key, raw] of Object.entries((doc["config"] ?? {}) as Record<string, unknown>)) {
    const full = qualify(key, project.name);
    if (!holdsSecure(raw)) {
      config.set(full, { value: raw, secret: false });
      continue;
    }
    if (passphrase === undefined) throw new ProjectError(`${file}: "${key}" holds a secure value; set PULUMI_CONFIG_PASSPHRASE to decrypt it`);
    if (salt === undefined) throw new ProjectError(`${file}: "${key}" holds a secure value but the file has no encryptionsalt`);
    const opened = (crypter ??= await PassphraseCrypter.open(passphrase, salt));
    const open = (v: unknown): unknown => {
      const ciphertext = secureText(v);
      if (ciphertext !== undefined) {
        try {
          return opened.decrypt(ciphertext);
        } catch (e) {
          throw new PassphraseError(`${file}: "${key}": ${(e as Error).message}`);
        }
      }
      if (Array.isArray(v)) return v.map(open);
      if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, open(x)]));
      return v;
    };
    config.set(full, { value: open(raw), secret: true });
  }
  return salt === undefined ? { config } : { config, encryptionSalt: salt };
}

/** Parses `key=value` from the command line into the config. */
export function setConfigArg(config: StackConfig, project: string, arg: string, secret: boolean): void {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new ProjectError(`--${secret ? "secret" : "config"} "${secret ? arg.replace(/=.*/s, "=<secret>") : arg}": expected key=value`);
  config.set(qualify(arg.slice(0, eq), project), { value: arg.slice(eq + 1), secret });
}

/**
 * A config value's text, as Pulumi hands config on (PULUMI_CONFIG, a default provider's inputs): objects as JSON,
 * their keys sorted as Go's encoding/json writes a map, so the text is the same whichever tool wrote the state.
 */
function configText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value !== "object") return String(value);
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** The config as the Node runtime reads it: PULUMI_CONFIG (every value a string) and the secret keys. */
export function programConfigEnv(config: StackConfig): Record<string, string> {
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, { value, secret }] of config) {
    values[key] = configText(value);
    if (secret) secrets.push(key);
  }
  return { PULUMI_CONFIG: JSON.stringify(values), PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secrets) };
}

/**
 * The inputs a default provider of package `pkg` records, as the Pulumi CLI's Target.GetPackageConfig makes them: a
 * dynamic provider's are the whole stack config, keys namespaced; another package's its own keys without the
 * namespace. Each value is the config's text, a secure one secret. `pulumi refresh` configures providers from these.
 */
export function packageConfig(config: StackConfig, pkg: string, dynamic: boolean): PropertyMap {
  const inputs: PropertyMap = {};
  for (const [key, { value, secret }] of config) {
    if (!dynamic && !key.startsWith(`${pkg}:`)) continue;
    const text = configText(value);
    inputs[dynamic ? key : key.slice(pkg.length + 1)] = secret ? { [SIG_KEY]: SECRET_SIG, value: text } : text;
  }
  return inputs;
}

/** The config as a dynamic provider's configure() receives it: the whole stack config, structured values parsed. */
export function providerConfig(config: StackConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, { value }] of config) out[key] = typeof value === "string" || typeof value === "object" ? value : String(value);
  return out;
}
