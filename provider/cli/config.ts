// `audience config [get|set|rm]`: the stack's config in Pulumi.<stack>.yaml beside the program, kept as
// `pulumi config` keeps it (secure values encrypted with PULUMI_CONFIG_PASSPHRASE), and read by `audience run`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { isCollection, isMap, parseDocument, type Document } from "yaml";
import { PassphraseCrypter } from "../engine/secrets.ts";
import { resolvePassphrase, shellWord, stackCommand, type StackPlace } from "../engine/stack-files.ts";
import { configuredStacks, loadStackConfig, ProjectError, qualify, stackConfigPath, type ConfigValue } from "../engine/project.ts";
import { parsePath, SECRET_MASK } from "../protocol/values.ts";
import { columns } from "./columns.ts";
import { selectStack } from "./select-stack.ts";
import { stackOptions, type StackFlags } from "./stack-options.ts";
import { pipedInput } from "./terminal.ts";
import { UsageError } from "./usage.ts";

interface KeyFlags extends StackFlags {
  path?: boolean;
}

/** Where the key is under `config`: its qualified name, then with --path the members below it. */
function keyPath(key: string, project: string, path: boolean | undefined): (string | number)[] {
  if (!path) return [qualify(key, project)];
  let parts: (string | number)[];
  try {
    parts = parsePath(key);
  } catch {
    throw new UsageError(`config key "${key}": expected a property path such as audience:accounts.north.apiKey or tags[0]`);
  }
  const [top, ...members] = parts;
  if (typeof top !== "string") throw new UsageError(`config key "${key}": a property path starts with a key name`);
  return [qualify(top, project), ...members];
}

/** A key's path as `--path` takes it: `audience:accounts.north`, `tags[0]`. */
function pathText([top, ...members]: (string | number)[]): string {
  return members.reduce<string>((text, m) => (typeof m === "number" ? `${text}[${m}]` : /^[\w-]+$/.test(m) ? `${text}.${m}` : `${text}[${JSON.stringify(m)}]`), String(top));
}

/** The command that removes the value on `path` that is neither a map nor a list, which a value below it cannot be set in. */
function removeCommand(doc: Document, path: (string | number)[], place: StackPlace): string {
  let depth = 1;
  while (depth < path.length && isCollection(doc.getIn(["config", ...path.slice(0, depth)]))) depth++;
  const key = path.slice(0, depth);
  return stackCommand(`config rm ${key.length > 1 ? "--path " : ""}${shellWord(pathText(key))}`, place);
}

/** The passphrase when one is set: only secure values need it. */
function passphraseIfSet(): string | undefined {
  try {
    return resolvePassphrase();
  } catch (e) {
    if (e instanceof ProjectError) return undefined;
    throw e;
  }
}

function readDocument(file: string): Document {
  const doc = parseDocument(existsSync(file) ? readFileSync(file, "utf8") : "");
  if (doc.errors.length > 0) throw new ProjectError(`${file}: not valid YAML (${doc.errors[0]?.message})`);
  if (doc.contents === null) doc.contents = doc.createNode({}) as Document.Parsed["contents"];
  if (!isMap(doc.contents)) throw new ProjectError(`${file}: expected a mapping at the top level`);
  return doc;
}

/** The crypter of the file's `encryptionsalt`; a file without one gets a new salt, first in the file as Pulumi writes it. */
async function fileCrypter(doc: Document, file: string): Promise<PassphraseCrypter> {
  const salt = doc.get("encryptionsalt");
  if (salt !== undefined && typeof salt !== "string") throw new ProjectError(`${file}: encryptionsalt must be a string`);
  const crypter = await PassphraseCrypter.open(resolvePassphrase(), salt);
  if (salt === undefined && isMap(doc.contents)) doc.contents.items.unshift(doc.createPair("encryptionsalt", crypter.saltState));
  return crypter;
}

/** A value on one line (a table cell), or pretty JSON for a structured value printed alone. */
function show(value: unknown, pretty: boolean): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, pretty ? 2 : undefined);
}

/** The value at the members below a config value (with --path). */
function member(value: unknown, members: (string | number)[]): unknown {
  let current = value;
  for (const m of members) current = typeof current === "object" && current !== null ? (current as Record<string | number, unknown>)[m] : undefined;
  return current;
}

export function register(program: Command): void {
  const config = program
    .command("config")
    .addHelpText("after", "\nSecure values are encrypted with PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE), as Pulumi's passphrase provider does.");

  // The default subcommand, so that `audience config [--stack dev]` lists, as `pulumi config` does.
  stackOptions(config.command("list", { isDefault: true }), { state: false })
    .description("list the config values; secrets read [secret] without --show-secrets")
    .option("--show-secrets", "print secret values instead of [secret]")
    .option("--json", "print {key: {value, secret}} as JSON")
    .action(async (flags: StackFlags & { showSecrets?: boolean; json?: boolean }) => {
      const { project, stack, statePath, place } = selectStack(flags);
      // A misspelled stack would list nothing, which a script cannot tell from a stack without config.
      if (!existsSync(stackConfigPath(project, stack)) && !existsSync(statePath)) {
        const known = configuredStacks(project);
        throw new Error(`no stack "${stack}" here: ${stackConfigPath(project, stack)} does not exist and the stack has no state`
          + `${known.length > 0 ? ` (stacks configured here: ${known.join(", ")})` : ""}; \`${stackCommand("config set <key> <value>", place)}\` begins its config`);
      }
      const { config: values } = await loadStackConfig(project, stack, passphraseIfSet());
      const shown = (c: ConfigValue) => (c.secret && !flags.showSecrets ? SECRET_MASK : c.value);
      const keys = [...values.keys()].sort();
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(Object.fromEntries(keys.map((k) => [k, { value: shown(values.get(k)!), secret: values.get(k)!.secret }])), null, 2)}\n`);
        return;
      }
      process.stdout.write(columns(["KEY", "VALUE"], keys.map((k) => [k, show(shown(values.get(k)!), false)])));
    });

  stackOptions(config.command("get"), { state: false })
    .description("print a config value (secrets decrypted), as the program sees it")
    .argument("<key>", "key, e.g. audience:baseUrl (without a namespace: the project's)")
    .option("--path", "the key is a property path into a structured value, e.g. audience:accounts.north.apiKey")
    .action(async (key: string, flags: KeyFlags) => {
      const { project, stack, place } = selectStack(flags);
      const [top, ...members] = keyPath(key, project.name, flags.path);
      const { config: values } = await loadStackConfig(project, stack, passphraseIfSet());
      const value = member(values.get(top as string)?.value, members);
      if (value === undefined) throw new Error(`config "${key}" is not set for stack ${stack} (see \`${stackCommand("config", place)}\`)`);
      process.stdout.write(`${show(value, true)}\n`);
    });

  stackOptions(config.command("set"), { state: false })
    .description("set a config value in Pulumi.<stack>.yaml; with --secret it is stored encrypted")
    .argument("<key>", "key, e.g. audience:baseUrl (without a namespace: the project's)")
    .argument("[value]", "the value; read from stdin when left out (keeps secrets out of shell history)")
    .option("--secret", "encrypt the value with PULUMI_CONFIG_PASSPHRASE")
    .option("--path", "the key is a property path into a structured value, e.g. audience:accounts.north.apiKey")
    .action(async (key: string, given: string | undefined, flags: KeyFlags & { secret?: boolean }) => {
      const { project, stack, place } = selectStack(flags);
      const path = keyPath(key, project.name, flags.path);
      let value = given;
      if (value === undefined) {
        value = (await pipedInput("config set: give the value as an argument, or on stdin")).replace(/\r?\n$/, "");
        // An empty stdin is a pipe that failed (an unset variable, a missing file), not a value to keep.
        if (value === "" && flags.secret) throw new UsageError(`config set --secret ${key}: stdin was empty; give the secret on stdin (or as an argument)`);
      }
      const file = stackConfigPath(project, stack);
      const doc = readDocument(file);
      const node = flags.secret ? { secure: (await fileCrypter(doc, file)).encrypt(value) } : value;
      if (!doc.has("config")) doc.set("config", doc.createNode({}));
      try {
        doc.setIn(["config", ...path], doc.createNode(node));
      } catch {
        throw new ProjectError(`${file}: cannot set "${key}": a value on its path is not a map or list (remove it first with \`${removeCommand(doc, path, place)}\`)`);
      }
      writeFileSync(file, doc.toString());
    });

  stackOptions(config.command("rm"), { state: false })
    .description("remove a config value from Pulumi.<stack>.yaml")
    .argument("<key>", "key, e.g. audience:baseUrl (without a namespace: the project's)")
    .option("--path", "the key is a property path into a structured value, e.g. audience:accounts.north.apiKey")
    .action((key: string, flags: KeyFlags) => {
      const { project, stack } = selectStack(flags);
      const path = keyPath(key, project.name, flags.path);
      const file = stackConfigPath(project, stack);
      if (!existsSync(file)) return;
      const doc = readDocument(file);
      if (!doc.hasIn(["config", ...path])) return;
      doc.deleteIn(["config", ...path]);
      writeFileSync(file, doc.toString());
    });
}
