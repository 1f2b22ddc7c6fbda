// `audience pending`: the step Pulumi leaves to the user after an interrupted `up`. Each create the state holds as
// pending is looked for in the account by what it declared; the answer is the exact resolution: for a `pulumi stack
// export` document, the `pulumi stack import` of a resolved copy that records what was made and drops what was not;
// for this engine's own state, the same change, made with --apply.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { loadProject, loadStackConfig, providerConfig, type StackConfig } from "../engine/project.ts";
import { isDefaultProvider, providerTypeOf } from "../engine/providers.ts";
import { lockStack } from "../engine/lock.ts";
import { Snapshot } from "../engine/snapshot.ts";
import { StateError, type PendingOperation, type ResourceState } from "../engine/state-file.ts";
import { DEFAULT_STACK, resolvePassphrase, shellWord, stackCommand } from "../engine/stack-files.ts";
import { STACK_TYPE, urnStack } from "../engine/urn.ts";
import { accountServices } from "../runtime/lifecycle/service-client.ts";
import { readSettings } from "../runtime/lifecycle/settings.ts";
import { familyOfType, resolvePendingCreates, type PendingCreate, type Resolution } from "../runtime/lifecycle/pending.ts";
import { KIND_KEY, PROVIDER_KEY } from "../runtime/lifecycle/controls.ts";
import { annotateSecrets, revealedMap, type PropertyMap } from "../protocol/values.ts";
import { selectStack } from "./select-stack.ts";
import { stackOptions, type StackFlags } from "./stack-options.ts";
import { pipedInput } from "./terminal.ts";
import { usageExitStatus, UsageError } from "./usage.ts";
import { inProcessProvider } from "./extension.ts";
import { PACKAGE } from "../runtime/markers.ts";

interface PendingFlags extends StackFlags {
  file?: string;
  out: string;
  since?: string;
  apply?: boolean;
  json?: boolean;
}

/**
 * The command that makes the resolutions in a Pulumi stack: the resolved export, imported. (`pulumi refresh
 * --import-pending-creates` of Pulumi 3.274 ends the pending creates without recording the resources it is given.)
 */
export function importCommand(resolutions: Resolution[], out: string, stack?: string): string | undefined {
  if (!resolutions.some((r) => r.action === "import" || r.action === "clear")) return undefined;
  return ["pulumi stack import", ...(stack ? [`--stack ${shellWord(stack)}`] : []), `--file ${shellWord(out)}`].join(" ");
}

function describe(r: Resolution): string {
  switch (r.action) {
    case "import":
      return `made ${r.id} (the one resource with its name and configuration created in its time window, in no state): record it`;
    case "clear":
      return "made nothing (no resource with its name and configuration was created in its time window): drop it; the next up creates it";
    case "ambiguous":
      return `${r.candidates.length} resources could be what it made (${r.candidates.join(", ")}): none is taken. Delete the ones that are not this stack's (or import the right one by hand), then run this again`;
    case "unknown":
      return r.reason;
  }
}

function parseSince(value: string): number {
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(at)) throw new UsageError(`--since: expected a time (ISO 8601, e.g. 2026-11-24T07:30:00Z, or ms since the epoch), got "${value}"`);
  return at;
}

/** The stack's config when the program is at hand (it names the accounts), else none: the environment's account. */
async function stackConfig(flags: PendingFlags, passphrase: string | undefined): Promise<StackConfig | undefined> {
  if (!existsSync(`${flags.cwd}/Pulumi.yaml`) || passphrase === undefined) return undefined;
  return (await loadStackConfig(loadProject(flags.cwd), flags.stack, passphrase)).config;
}

/** An export's text, or why it cannot be read, naming the file. */
async function exportText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StateError(`--file ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a `pulumi stack export` document" : (error as Error).message}`);
  }
}

function optionalPassphrase(): string | undefined {
  try {
    return resolvePassphrase();
  } catch {
    return undefined;
  }
}

/** A pending operation as a message names it. */
const OPERATION: Record<string, string> = { updating: "update", deleting: "delete", reading: "read", importing: "import" };

export function register(program: Command): void {
  stackOptions(usageExitStatus(program.command("pending"), 1), { state: true })
    .description("resolve the creates an interrupted up left pending: find what each made in the account and print (or, for this engine's state, --apply) the resolution")
    .option("--file <path>", "a `pulumi stack export` document (`-` for stdin) instead of this engine's state")
    .option("--out <path>", "with --file: where to write the resolved document for `pulumi stack import`", "pending-resolved.json")
    .option("--since <time>", "when the interrupted run began (ISO 8601); required for creates whose record has no start time (Pulumi's)")
    .option("--apply", "record what was made and drop what was not, in this engine's state")
    .option("--json", "print the resolutions as JSON")
    .action(async (flags: PendingFlags, command: Command) => {
      if (flags.apply && flags.file) throw new UsageError("--apply changes this engine's state; for a `pulumi stack export` document run the `pulumi stack import` it prints");
      const passphrase = optionalPassphrase();
      const since = flags.since === undefined ? undefined : parseSince(flags.since);
      const { statePath, place } = flags.file ? { statePath: "", place: undefined } : selectStack(flags);
      if (!flags.file && !existsSync(statePath)) {
        const exportCommand = `pulumi stack export${flags.stack === DEFAULT_STACK ? "" : ` --stack ${shellWord(flags.stack)}`}`;
        throw new StateError(`no state of this engine at ${statePath}; for a stack of the Pulumi CLI, give its export: \`${exportCommand} | ${stackCommand("pending --file - --since <when the run began>", place!)}\``);
      }
      const unlock = flags.apply ? await lockStack(statePath) : async () => undefined;
      // An export is resolved in a copy of its own, never beside it.
      const scratch = flags.file ? await mkdtemp(join(tmpdir(), "audience-pending-")) : undefined;
      try {
        const state = flags.file
          ? await Snapshot.parse(flags.file === "-" ? await pipedInput("pending --file -: pipe a `pulumi stack export` document on stdin, or give its path") : await exportText(flags.file), { path: join(scratch!, "exported.json"), passphrase: passphrase ?? "", source: flags.file })
          : await Snapshot.load(statePath, passphrase ?? "", undefined, { place });
        // An export's stack is the one its resources name, unless --stack says otherwise: its config names the
        // accounts its creates were sent to.
        const first = state.resources[0]?.urn;
        const exported = first === undefined ? undefined : urnStack(first);
        const stack = flags.file && command.getOptionValueSource("stack") === "default" && exported ? exported : flags.stack;
        const ops = state.pendingById().filter(([, op]) => op.type === "creating");
        // Updates and deletes in flight need no resolving: the state keeps the resource as it was, and the next run
        // sends them again, which changes nothing where they took effect. Told, so that none is left unexplained.
        const others = state.pendingById().filter(([, op]) => op.type !== "creating").map(([, op]) => ({ urn: op.resource.urn, type: op.type }));
        const now = Date.now();
        const creates: PendingCreate[] = ops.map(([, op]) => {
          const began = op.startedAt ?? since;
          if (began === undefined) throw new UsageError(`${op.resource.urn}: its pending create records no start time (as Pulumi's do): give --since, the time the interrupted run began`);
          return { urn: op.resource.urn, type: op.resource.type, inputs: revealedMap(op.resource.inputs), since: Math.max(began, since ?? 0), until: now };
        });
        const config = await stackConfig({ ...flags, stack }, passphrase);
        const settings = readSettings((key) => (config ? providerConfig(config)[key] : undefined), process.env);
        const services = accountServices(() => settings);
        const recorded = new Set(state.resources.flatMap((r) => (r.id ? [r.id] : [])));
        const resolutions = await resolvePendingCreates(creates, services.service, recorded);
        const out = resolve(flags.out);
        const resolveWith = flags.file ? importCommand(resolutions, out, stack) : undefined;
        if (flags.apply || resolveWith) await apply(state, ops, resolutions, config).finally(() => state.close());
        if (resolveWith) await writeFile(out, state.export({ showSecrets: false }), { mode: 0o600 });
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ pending: resolutions, ...(others.length > 0 ? { others } : {}), ...(resolveWith ? { command: resolveWith } : {}), applied: flags.apply === true }, null, 2)}\n`);
        } else {
          if (resolutions.length === 0) process.stdout.write("No pending creates in this state\n");
          for (const r of resolutions) process.stdout.write(`pending create ${r.urn}: ${describe(r)}\n`);
          for (const o of others) process.stdout.write(`pending ${OPERATION[o.type] ?? o.type} ${o.urn}: its outcome is not known, and the state keeps the resource as it was; the next run sends it again, which changes nothing where it took effect\n`);
          if (resolveWith) process.stdout.write(`\nResolve them with:\n  ${resolveWith}\n`);
          else if (!flags.file && !flags.apply && resolutions.some((r) => r.action === "import" || r.action === "clear")) process.stdout.write("\nRun again with --apply to make these changes to the state\n");
          else if (flags.apply) process.stdout.write(`\nApplied to ${statePath}\n`);
        }
        if (resolutions.some((r) => r.action === "ambiguous" || r.action === "unknown")) process.exitCode = 2;
      } finally {
        await unlock();
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }
    });
}

/** Makes the resolutions in this engine's state: a found resource is read and recorded; a create that made nothing is dropped. */
async function apply(state: Snapshot, ops: [string, PendingOperation][], resolutions: Resolution[], config: StackConfig | undefined): Promise<void> {
  const reader = inProcessProvider({ config: config ? providerConfig(config) : {}, env: process.env });
  const stack = state.resources.find((r) => r.type === STACK_TYPE);
  for (const [i, [opId, op]] of ops.entries()) {
    const resolution = resolutions[i]!;
    if (resolution.action === "clear") await state.end(opId);
    if (resolution.action !== "import") continue;
    const family = familyOfType(op.resource.type)!;
    const native = !op.resource.type.startsWith("pulumi-nodejs:");
    const props = { ...op.resource.inputs, [KIND_KEY]: family.collection } as PropertyMap;
    const read = await reader.read(resolution.id, op.resource.urn, undefined, props);
    if (!read.id) throw new StateError(`${op.resource.urn}: ${resolution.id} is gone from the account; run pending again`);
    // Secret as declared (the read answers plain values), and without the dynamic provider's markers when native.
    const bare = (m: PropertyMap) => annotateSecrets(native ? Object.fromEntries(Object.entries(m).filter(([k]) => k !== KIND_KEY && k !== PROVIDER_KEY)) : m, op.resource.inputs);
    const providerType = providerTypeOf(op.resource.type, PACKAGE);
    const recorded = op.resource as { parent?: unknown; provider?: unknown };
    const provider = state.resources.find((r) => r.type === providerType && isDefaultProvider(r));
    const resource: ResourceState = {
      urn: op.resource.urn, custom: true, type: op.resource.type, id: read.id,
      inputs: bare(read.inputs ?? op.resource.inputs), outputs: bare(read.outputs), dependencies: [],
      // As the pending create names them (Pulumi's records do), else this stack's and its default provider.
      ...(typeof recorded.parent === "string" ? { parent: recorded.parent } : stack ? { parent: stack.urn } : {}),
      ...(typeof recorded.provider === "string" ? { provider: recorded.provider } : provider ? { provider: `${provider.urn}::${provider.id}` } : {}),
    };
    await state.upsert(resource);
    await state.end(opId);
  }
  await state.save();
}
