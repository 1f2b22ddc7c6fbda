// The README and the guides in docs/ show commands for users to run: each must exist as written. Every shell block's
// `audience` command names a subcommand and options the CLI defines, every `npm run` a script of package.json, every
// `pulumi` command a subcommand and flags of the pinned CLI (when built here), and every relative link a file; no
// paragraph stops mid-sentence.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { define as demo } from "../provider/cli/commands/demo.ts";
import { define as emulator } from "../provider/cli/commands/emulator.ts";
import { define as run } from "../provider/cli/commands/run.ts";
import { register as config } from "../provider/cli/config.ts";
import { register as drift } from "../provider/cli/drift/index.ts";
import { register as generate } from "../provider/cli/generate.ts";
import { register as newProgram } from "../provider/cli/new.ts";
import { register as pending } from "../provider/cli/pending.ts";
import { register as stack } from "../provider/cli/stack.ts";
import { register as schema } from "../provider/plugin/command.ts";
import { pulumiCli } from "./pulumi/cli.ts";

const ROOT = join(import.meta.dirname, "..");
const DOCS = ["README.md", "examples/README.md", "examples/other-languages/README.md", ...["python", "go", "java", "yaml"].map((l) => `examples/other-languages/adaptive-discounting-${l}/README.md`), ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** The command lines of a page's shell blocks: comments and prompts' output (lines starting with #) left out. */
function commandLines(text: string): string[] {
  const lines: string[] = [];
  for (const block of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split("\n")) {
      const line = raw.replace(/\s+#\s.*$/, "").trim();
      if (line && !line.startsWith("#")) lines.push(line);
    }
  }
  return lines;
}

/** The words of a command line, one command of a `&&` chain or pipe at a time, quotes removed. */
function commands(line: string): string[][] {
  return line.split(/&&|\|/).map((part) => (part.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^['"]|['"]$/g, "")));
}

// The commands as they parse a command line: the lazy ones with the options their modules declare.
const audience = new Command("audience").exitOverride();
for (const define of [newProgram, emulator, run, config, stack, pending, demo, drift, generate, schema]) define(audience);

/** What is wrong with an `audience` command line, or undefined. */
function audienceProblem(words: string[]): string | undefined {
  let command = audience;
  const rest = [...words];
  while (rest.length && !rest[0]!.startsWith("-")) {
    const sub = command.commands.find((c) => c.name() === rest[0] || c.aliases().includes(rest[0]!));
    if (!sub) break;
    command = sub;
    rest.shift();
  }
  if (command === audience) return `no subcommand ${rest[0]}`;
  const known = new Set(["--help", "-h", ...command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => Boolean(f))]);
  const unknown = rest.filter((w) => w.startsWith("-") && w !== "-").map((w) => w.split("=")[0]!).filter((f) => !known.has(f));
  return unknown.length ? `${command.name()} has no ${unknown.join(", ")}` : undefined;
}

const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

describe.each(DOCS)("%s", (page) => {
  const text = readFileSync(join(ROOT, page), "utf8");
  const lines = commandLines(text);

  it("names only audience subcommands and options that exist", () => {
    const problems = lines.flatMap(commands).flatMap((words) => {
      const at = words[0] === "npx" && words[1] === "audience" ? 2 : words[0] === "npm" && words[2] === "audience" && words[3] === "--" ? 4 : -1;
      if (at < 0) return [];
      const problem = audienceProblem(words.slice(at));
      return problem ? [`${words.join(" ")}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("runs only npm scripts that exist", () => {
    const missing = lines.flatMap(commands).filter((w) => w[0] === "npm" && w[1] === "run").map((w) => w.find((x, i) => i >= 2 && !x.startsWith("-"))!).filter((s) => !(s in scripts));
    expect(missing).toEqual([]);
  });

  it("ends each paragraph with its sentence: none is cut off", () => {
    // Prose outside code blocks (headings, tables, lists, quotes, HTML aside); a comma ends one a code block continues.
    const paragraphs = text.replace(/```[\s\S]*?```/g, "").split(/\n\s*\n/).map((b) => b.trim()).filter((b) => b && !/^([#|>*<-]|\d+\.)/.test(b));
    expect(paragraphs.filter((b) => !/[.:?!,][)*`]?$/.test(b)).map((b) => b.slice(-80))).toEqual([]);
  });

  it("links only to files that exist", () => {
    const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.filter((l) => !existsSync(join(ROOT, dirname(page), l)))).toEqual([]);
  });

  const cli = pulumiCli();
  it.skipIf(!cli.dir)(`names only pulumi subcommands and flags the pinned CLI has${cli.dir ? "" : ` (skipped: ${cli.reason})`}`, () => {
    const problems: string[] = [];
    for (const words of lines.flatMap(commands).filter((w) => w[0] === "pulumi")) {
      const path = words.slice(1).filter((w, i, all) => all.slice(0, i + 1).every((x) => /^[a-z][a-z-]*$/.test(x)));
      const help = spawnSync(join(cli.dir!, "pulumi"), [...path, "--help"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } });
      const usage = `${help.stdout}\n${help.stderr}`;
      if (help.status !== 0 || /unknown command/i.test(usage)) problems.push(`${words.join(" ")}: pulumi ${path.join(" ")} is not a command`);
      for (const flag of words.filter((w) => w.startsWith("--")).map((w) => w.split("=")[0]!)) {
        if (!usage.includes(`${flag} `) && !usage.includes(`${flag}\n`)) problems.push(`${words.join(" ")}: pulumi ${path.join(" ")} has no ${flag}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
