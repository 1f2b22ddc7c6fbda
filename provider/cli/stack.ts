// `audience stack output|export|import|restore|rm`: the stack's state as `pulumi stack` shows, exports, imports,
// restores and removes it, in the `pulumi stack export` layout both read and write.
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { Snapshot } from "../engine/snapshot.ts";
import { resolvePassphrase, stackCommand } from "../engine/stack-files.ts";
import { loadStackConfig, stackConfigPath } from "../engine/project.ts";
import { markInterrupted, readBackup, restoreBackup, setAside } from "../engine/backups.ts";
import { journalPath } from "../engine/journal.ts";
import { lockStack } from "../engine/lock.ts";
import { StateError } from "../engine/state-file.ts";
import { STACK_TYPE, urnOwner } from "../engine/urn.ts";
import { masked, revealed, type Value } from "../protocol/values.ts";
import { columns } from "./columns.ts";
import { selectStack } from "./select-stack.ts";
import { stackOptions, type StackFlags } from "./stack-options.ts";
import { pipedInput } from "./terminal.ts";

async function loadState(flags: StackFlags): Promise<{ state: Snapshot; stack: string }> {
  const { stack, statePath, place } = selectStack(flags);
  if (!existsSync(statePath)) throw new StateError(`stack ${stack} has no state at ${statePath}: run \`${stackCommand("run up", place)}\` first`);
  return { state: await Snapshot.load(statePath, resolvePassphrase(), undefined, { place }), stack };
}

export function register(program: Command): void {
  const stack = program.command("stack");

  stackOptions(stack.command("output"), { state: true })
    .description("print the stack's outputs (one with NAME); secrets read [secret] without --show-secrets")
    .argument("[name]", "the output to print")
    .option("--json", "print JSON")
    .option("--show-secrets", "print secret outputs in plaintext")
    .action(async (name: string | undefined, flags: StackFlags & { json?: boolean; showSecrets?: boolean }) => {
      const { state, stack: stackName } = await loadState(flags);
      const outputs = state.resources.find((r) => r.type === STACK_TYPE)?.outputs ?? {};
      const view = (v: Value) => (flags.showSecrets ? revealed(v) : masked(v));
      const line = (v: Value) => {
        const shown = view(v);
        return typeof shown === "string" ? shown : JSON.stringify(shown);
      };
      if (name !== undefined) {
        const value = outputs[name];
        if (value === undefined) throw new StateError(`stack ${stackName} has no output "${name}" (its outputs: ${Object.keys(outputs).join(", ") || "none"})`);
        process.stdout.write(`${flags.json ? JSON.stringify(view(value), null, 2) : line(value)}\n`);
        return;
      }
      const entries = Object.entries(outputs).sort(([a], [b]) => a.localeCompare(b));
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(Object.fromEntries(entries.map(([k, v]) => [k, view(v)])), null, 2)}\n`);
      } else if (entries.length === 0) {
        process.stdout.write("No output values currently in this stack\n");
      } else {
        process.stdout.write(`Current stack outputs (${entries.length}):\n${columns(["OUTPUT", "VALUE"], entries.map(([k, v]) => [k, line(v)]), 4)}`);
      }
    });

  stackOptions(stack.command("export"), { state: true })
    .description("print the stack's state as `pulumi stack export` does (secrets encrypted unless --show-secrets)")
    .option("--show-secrets", "secrets in plaintext, as `pulumi stack export --show-secrets` writes them")
    .option("--file <path>", "write the document to this file instead of stdout")
    .action(async (flags: StackFlags & { showSecrets?: boolean; file?: string }) => {
      const { state } = await loadState(flags);
      const document = state.export({ showSecrets: flags.showSecrets === true });
      if (flags.file) await writeFile(flags.file, document, { mode: 0o600 });
      else process.stdout.write(document);
    });

  stackOptions(stack.command("restore"), { state: true })
    .description("rebuild a damaged state from its last good copy (<stack>.json.bak) and its journal; the files it replaces are set aside, not deleted")
    .action(async (flags: StackFlags) => {
      const { stack: stackName, statePath, place } = selectStack(flags);
      const passphrase = resolvePassphrase();
      const unlock = await lockStack(statePath);
      try {
        // A whole state is never replaced: the copy could only be as new, and what was confirmed since (an import) stays.
        const current = await Snapshot.load(statePath, passphrase).then((s) => s, (e: unknown) => (e instanceof StateError ? undefined : Promise.reject(e)));
        if (current) {
          await current.close();
          throw new StateError(`the state of stack ${stackName} (${statePath}) is whole: nothing to restore`);
        }
        const backup = await readBackup(statePath);
        const when = backup.written ? `written at ${backup.written}` : "of unknown date";
        process.stderr.write(`restoring stack ${stackName} from ${backup.path}: the state ${when}, holding ${backup.resources} resource${backup.resources === 1 ? "" : "s"}, with the changes its journal recorded since\n`);
        const asides = [await restoreBackup(statePath)];
        const rebuilt = await Snapshot.load(statePath, passphrase).then((s) => s, (e: unknown) => (e instanceof StateError ? e : Promise.reject(e)));
        if (rebuilt instanceof StateError) {
          // The journal does not go on from the copy: what it recorded cannot be brought back.
          asides.push(await setAside(journalPath(statePath)));
          await markInterrupted(statePath, backup.journal, backup.written ? Date.parse(backup.written) : Date.now());
          process.stderr.write(`the journal cannot be applied over it (${rebuilt.message.split("; ")[0]}): what the stack recorded after ${backup.written ?? "the copy was written"} is not in the restored state. `
            + `The next \`${stackCommand("run up", place)}\` looks in the account for each resource it creates before creating it, so nothing made since is made twice\n`);
        } else {
          const held = rebuilt.resources.filter((r) => r.type !== STACK_TYPE && !r.type.startsWith("pulumi:providers:")).length;
          await rebuilt.compact();
          await rebuilt.close();
          process.stderr.write(`the state now holds ${held} resource${held === 1 ? "" : "s"}\n`);
        }
        for (const file of asides) if (file) process.stderr.write(`set aside ${file}\n`);
        process.stderr.write(`restored stack ${stackName}; run \`${stackCommand("run refresh", place)}\` to read changes made outside the stack\n`);
      } finally {
        await unlock();
      }
    });

  stackOptions(stack.command("import"), { state: true })
    .description("replace the stack's state with a `pulumi stack export` document (secrets encrypted or in plaintext)")
    .option("--file <path>", "read the document from this file instead of stdin")
    .action(async (flags: StackFlags & { file?: string }) => {
      const { project, stack: stackName, statePath } = selectStack(flags);
      const source = flags.file ?? "stdin";
      const document = flags.file ? await readFile(flags.file, "utf8") : await pipedInput("stack import: give --file <path>, or pipe a `pulumi stack export` document on stdin");
      const passphrase = resolvePassphrase();
      // A stack without state takes its config file's salt, as `audience run` would.
      const { encryptionSalt } = await loadStackConfig(project, stackName, passphrase);
      const unlock = await lockStack(statePath);
      try {
        const state = await Snapshot.parse(document, { path: statePath, passphrase, ...(encryptionSalt ? { saltForNewStack: encryptionSalt } : {}), source });
        // Resources of another stack would not match this program's: its next run would create them all again.
        const foreign = state.resources.find((r) => urnOwner(r.urn) !== `${project.name}/${stackName}`);
        if (foreign) throw new StateError(`${source}: ${foreign.urn} belongs to ${urnOwner(foreign.urn)}, not to ${project.name}/${stackName}`);
        await state.save();
        process.stderr.write(`imported ${state.resources.length} resources into ${project.name}/${stackName} (${statePath})\n`);
      } finally {
        await unlock();
      }
    });

  stackOptions(stack.command("rm"), { state: true })
    .description("remove the stack: its state and its Pulumi.<stack>.yaml; refused while it holds resources, unless --force")
    .option("--force", "remove it even though it still holds resources (they stay in the account, no longer managed)")
    .option("--preserve-config", "keep Pulumi.<stack>.yaml")
    .action(async (flags: StackFlags & { force?: boolean; preserveConfig?: boolean }) => {
      const { project, stack: stackName, statePath, place } = selectStack(flags);
      const unlock = await lockStack(statePath);
      try {
        if (existsSync(statePath)) {
          const state = await Snapshot.load(statePath, resolvePassphrase(), undefined, { place });
          const held = state.resources.filter((r) => r.type !== STACK_TYPE && !r.type.startsWith("pulumi:providers:"));
          if (held.length > 0 && !flags.force) {
            throw new StateError([
              `stack ${stackName} still holds ${held.length} resource${held.length === 1 ? "" : "s"}:`,
              ...held.slice(0, 10).map((r) => `  ${r.urn}`),
              ...(held.length > 10 ? [`  ... and ${held.length - 10} more`] : []),
              `Destroy them first (\`${stackCommand("run destroy", place)}\`), or remove the stack anyway with --force (they stay in the account).`,
            ].join("\n"));
          }
        }
        await rm(statePath, { force: true });
        await rm(`${statePath}.journal`, { force: true });
        if (!flags.preserveConfig) await rm(stackConfigPath(project, stackName), { force: true });
        process.stderr.write(`stack ${project.name}/${stackName} removed\n`);
      } finally {
        await unlock();
      }
    });
}
