// `audience demo` (also `npm run demo`): the whole story in under a minute, on a fresh machine, touching nothing.
// An emulated service, the adaptive-discounting example deployed, enabled, its CSV read, drift found, all destroyed.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { startEmulator } from "pulumi-audience/emulator";
import type { Operation } from "../engine/index.ts";
import { runProgram } from "./program.ts";
import { pulumiOnPath, runWithPulumiCli } from "../engine/pulumi-cli.ts";
import { createRenderer } from "./render.ts";
import { wantsColor } from "./terminal.ts";

const EXAMPLE = "adaptive-discounting";

/** The package root: the nearest folder above this module holding the example. */
function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "examples", EXAMPLE, "Pulumi.yaml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`examples/${EXAMPLE} not found above ${fileURLToPath(import.meta.url)}`);
  }
}

/** The node_modules folder an installed package sits in; undefined in a checkout. */
function installedIn(root: string): string | undefined {
  for (let dir = dirname(root); dirname(dir) !== dir; dir = dirname(dir)) if (basename(dir) === "node_modules") return dir;
  return undefined;
}

/**
 * An installed package's example, copied out of node_modules (where Node strips no types) into `into`, without the
 * `source` condition a checkout runs it with, its imports resolving to the installation the package sits in.
 */
function copiedFromInstall(root: string, modules: string, into: string): string {
  cpSync(join(root, "examples", EXAMPLE), into, { recursive: true });
  const yaml = join(into, "Pulumi.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace("--conditions=source ", ""));
  // An ES module program, as in the checkout (whose package.json says so) and as `audience new` writes one.
  writeFileSync(join(into, "package.json"), `${JSON.stringify({ name: EXAMPLE, private: true, type: "module" }, null, 2)}\n`);
  symlinkSync(modules, join(into, "node_modules"));
  return into;
}

/** A stream that indents what it is given, so run output nests under the demo's steps. */
function indented(target: NodeJS.WriteStream, prefix = "     "): Writable {
  let atLineStart = true;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString();
      let out = "";
      for (const ch of text) {
        if (atLineStart && ch !== "\n") out += prefix;
        out += ch;
        atLineStart = ch === "\n";
      }
      target.write(out);
      done();
    },
  });
}

interface Outcome {
  ok: boolean;
  error?: string;
  outputs: Record<string, unknown>;
}

export async function runDemo(): Promise<boolean> {
  const started = Date.now();
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const tty = Boolean(process.stdout.isTTY);
  const color = wantsColor(tty);
  const bold = (text: string) => (color ? `\x1b[1m${text}\x1b[0m` : text);
  const root = packageRoot();
  const scratch = mkdtempSync(join(tmpdir(), "audience-demo-"));
  const passphrase = process.env["PULUMI_CONFIG_PASSPHRASE"] ?? "demo passphrase";
  const pulumi = pulumiOnPath();

  say(bold("pulumi-audience demo: an audience pipeline as code, against an emulated service\n"));
  const emulator = await startEmulator();
  const env = { AUDIENCE_BASE_URL: `${emulator.url}/v1`, AUDIENCE_API_KEY: emulator.apiKey };
  say(`1. Started the emulated service at ${emulator.url} with a fresh account.`);

  // The Pulumi CLI writes Pulumi.<stack>.yaml next to the program: in a checkout, give it a copy inside the package
  // (so `pulumi-audience` still resolves) that is removed afterwards; the local engine reads the example in place.
  const modules = installedIn(root);
  const cliCopy = pulumi && !modules ? join(root, ".audience", `demo-${process.pid}`) : undefined;
  if (cliCopy) cpSync(join(root, "examples", EXAMPLE), cliCopy, { recursive: true });
  const cwd = modules ? copiedFromInstall(root, modules, join(scratch, "program")) : cliCopy ?? join(root, "examples", EXAMPLE);
  const how = pulumi ? `pulumi (${pulumi})` : "audience run (the local engine; no `pulumi` on PATH)";

  const run = async (operation: Operation, config: Record<string, string> = {}): Promise<Outcome> => {
    if (pulumi) {
      const r = await runWithPulumiCli({ pulumi, cwd, operation, stack: "demo", passphrase, backendDir: scratch, config, env });
      indented(process.stdout).write(r.output.trimEnd() + "\n");
      return r.ok ? { ok: true, outputs: r.outputs } : { ok: false, error: `pulumi ${operation} failed`, outputs: r.outputs };
    }
    const renderer = createRenderer({ out: indented(process.stdout), err: indented(process.stderr), tty });
    const r = await runProgram({ cwd, operation, stack: "demo", passphrase, stateDir: scratch, env, config, onEvent: renderer.event });
    return r.ok ? { ok: true, outputs: r.outputs } : { ok: false, error: r.error ?? `${operation} failed`, outputs: r.outputs };
  };
  const must = (o: Outcome, what: string) => {
    if (!o.ok) throw new Error(`${what}: ${o.error}`);
    return o.outputs;
  };
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${emulator.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${emulator.apiKey}`, ...init.headers } });

  let deployed = false;
  try {
    say(`\n2. Deploy examples/${EXAMPLE} with ${how}: a scope (Leads x Forecasted spend) and a hosted CSV target.`);
    deployed = true;
    const first = must(await run("up"), "up");
    say(`\n3. The build finished: scope ${first["scopeId"]} is ${first["scopeStatus"]}, still in preview (previewing = ${first["previewing"]}).`);

    say(`\n4. Enable the pipeline: the same program with config enabled=true turns preview off (one minimal update).`);
    const enabled = must(await run("up", { enabled: "true" }), "enable");
    const csvUrl = String(enabled["csvUrl"] ?? "");
    const csv = await fetch(csvUrl);
    const rows = (await csv.text()).trim().split("\n");
    say(`\n5. The delivered CSV (${csv.status === 200 ? `${rows.length - 1} rows` : `HTTP ${csv.status}`}), first lines:`);
    for (const row of rows.slice(0, 6)) say(`     ${row}`);

    say(`\n6. Someone renames the scope in the service's console, outside Pulumi.`);
    const patch = await api(`/scopes/${String(enabled["scopeId"])}`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ name: "Adaptive discounting (renamed by hand)" }),
    });
    if (!patch.ok) throw new Error(`renaming the scope: HTTP ${patch.status} ${await patch.text()}`);
    say(`\n7. refresh reads every resource back and reports the drift:`);
    must(await run("refresh", { enabled: "true" }), "refresh");
    say(`   The next up would rename it back to what the program says.`);
  } catch (e) {
    process.stderr.write(`\nThe demo stopped: ${(e as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    if (deployed) {
      say(`\n8. Destroy everything the program made:`);
      const destroyed = await run("destroy", { enabled: "true" }).catch((e: Error) => ({ ok: false, error: e.message, outputs: {} }));
      const left = await api("/scopes").then((r) => r.json() as Promise<unknown>).catch(() => undefined);
      const count = Array.isArray(left) ? left.length : Array.isArray((left as { data?: unknown[] } | undefined)?.data) ? (left as { data: unknown[] }).data.length : undefined;
      if (!destroyed.ok) {
        process.stderr.write(`   destroy failed: ${destroyed.error}\n`);
        process.exitCode = 1;
      } else say(`   The account is empty again${count === undefined ? "" : ` (${count} scopes)`}.`);
    }
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
    if (cliCopy) rmSync(cliCopy, { recursive: true, force: true });
  }
  say(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)}s; state and service data were temporary and are gone.`);
  if (modules) {
    say(`\nNext: \`npx audience new shop\` writes this pipeline as a program of your own (shop/index.ts); \`npx audience emulator\``);
    say(`in one terminal gives a service to try it on. Deploy for real with the Pulumi CLI: \`pulumi up\` in shop/.`);
  } else {
    say(`\nNext: read examples/${EXAMPLE}/index.ts, then run it yourself: \`npx audience emulator\` in one terminal and, with`);
    say(`AUDIENCE_BASE_URL, AUDIENCE_API_KEY and PULUMI_CONFIG_PASSPHRASE set, \`npx audience run up --cwd examples/${EXAMPLE}\`.`);
    say(`Deploy for real with the Pulumi CLI: \`pulumi up\` in that directory, against the live service.`);
  }
  return process.exitCode === undefined || process.exitCode === 0;
}
