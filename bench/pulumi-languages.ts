// Real-CLI rows by language: the adaptive-discounting pipeline (two lookups, a scope, a hosted-CSV target, a
// connection with a secret password, a cohort in a second account through an explicit provider) as
// examples/other-languages has it in Pulumi YAML, Java, Go and Python, against the same pipeline in TypeScript on the native
// face (`pulumi-audience/native`): `pulumi up` (its preview included, as users run it), a no-op `pulumi up` and
// `pulumi destroy`, each a whole `pulumi` process (wall, and CPU of it and every process it waited for), in a fresh
// stack against a fresh emulator. The plugin is found the same way for all three (Pulumi.yaml `plugins:`); the Java
// SDK comes from `npm run sdk:gen` and `mvn install`, and the Java program is compiled once before the first round,
// so the rows show a user's steady state, not Maven's first download. The Go program is built once likewise (the Go
// host builds it again in each `up`, on a warm build cache); beside it, the Go SDK's generation against the Node.js
// SDK's, and that first `go build` with an empty build cache against the same build warm. The Python program runs
// from a virtualenv holding its requirements and the SDK's wheel, where its Pulumi.yaml's `virtualenv` has the host
// look (`venv` in its folder, as the example's README makes it); beside it, the Python SDK's generation against the
// Node.js SDK's, and the install into a fresh virtualenv of the requirements with the SDK's wheel against the
// requirements alone.
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulatorControl } from "pulumi-audience/emulator";
import { generate } from "../scripts/sdk-gen.ts";
import { LoadRange, median, ROOT, startChild, type Bench, type Row } from "./measure.ts";
import { installedModules, methods, program, pulumiDir, pulumiEnv, timed, type Timed } from "./pulumi-cli.ts";
import type { EmulatorReady } from "./service.ts";

const ROUNDS = 3;
const OPERATIONS = ["up", "no-op up", "destroy"] as const;
type Operation = (typeof OPERATIONS)[number];
const LANGUAGES = ["typescript", "yaml", "java", "go", "python"] as const;
type Language = (typeof LANGUAGES)[number];
const EXAMPLES = join(ROOT, "examples", "other-languages");
const GO_SDK_MODULE = "github.com/pulumi-audience/pulumi-audience/sdk/go";
/** Go as the tests run it: the machine's Go, and -trimpath so that the build cache serves the SDK from any folder. */
const GO_ENV = { GOTOOLCHAIN: "local", GOFLAGS: "-trimpath" };
const PLUGIN = "plugins:\n  providers:\n    - name: audience\n      path: ./node_modules/pulumi-audience\n";

/** The Java and YAML examples' pipeline in TypeScript, on the native face. */
const TYPESCRIPT = `import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience/native";

const config = new pulumi.Config();
const leads = audience.getCohortOutput({ name: "Leads" });
const forecastedSpend = audience.getForecastOutput({ name: "Forecasted spend" });
const scope = new audience.Scope("adaptive-discounting", {
  name: "Adaptive discounting",
  population: { cohortIds: [leads.id] },
  payload: { forecastIds: [forecastedSpend.id] },
  preview: true,
  waitFor: "ready",
}, { customTimeouts: { create: "30m", update: "30m" } });
const csv = new audience.Target("adaptive-discounting-csv", {
  name: "Adaptive discounting (hosted CSV)",
  scopeId: scope.id,
  representation: { mode: "identified" },
  options: { type: "hosted_csv" },
});
const warehouse = new audience.Connection("warehouse", {
  name: "Analytics warehouse",
  options: { type: "postgres", host: "warehouse.example.com", port: 5432, database: "analytics", schema: "audience", user: "audience_delivery", password: config.requireSecret("warehousePassword") },
});
const north = new audience.Provider("north", { apiKey: config.requireSecret("northApiKey"), baseUrl: config.require("northBaseUrl") });
new audience.Cohort("north-leads", { name: "North leads", streamName: "transactions", streamConditions: [{ property: "amount", $gte: 100 }] }, { provider: north });
export const scopeId = scope.id;
export const csvUrl = csv.outputUrl;
export const connectionId = warehouse.id;
`;

/** Each language's program folder, with this package's node_modules and the plugin under Pulumi.yaml `plugins:`. */
async function programs(work: string, modules: string): Promise<{ dirs: Record<Language, string>; goBuild: { cold: Timed; warm: Timed }; pythonInstall: PythonInstall }> {
  const typescript = program(work, "typescript", TYPESCRIPT, modules);
  appendFileSync(join(typescript, "Pulumi.yaml"), PLUGIN);
  const yaml = join(work, "yaml");
  cpSync(join(EXAMPLES, "adaptive-discounting-yaml"), yaml, { recursive: true });
  const java = join(work, "java");
  cpSync(join(EXAMPLES, "adaptive-discounting-java"), java, { recursive: true, filter: (from) => !from.endsWith("/target") });
  const go = join(work, "go");
  cpSync(join(EXAMPLES, "adaptive-discounting-go"), go, { recursive: true });
  const python = join(work, "python");
  cpSync(join(EXAMPLES, "adaptive-discounting-python"), python, { recursive: true });
  for (const dir of [yaml, java, go, python]) {
    appendFileSync(join(dir, "Pulumi.yaml"), PLUGIN);
    symlinkSync(modules, join(dir, "node_modules"));
  }
  // The SDK into ~/.m2, as the example's README says, then the program compiled once.
  const sdk = generate(["java"], join(work, "sdks")).java;
  execFileSync("mvn", ["-B", "-q", "--no-transfer-progress", "install"], { cwd: sdk, stdio: "pipe" });
  execFileSync("mvn", ["-B", "-q", "--no-transfer-progress", "compile"], { cwd: java, stdio: "pipe" });
  // The Go SDK as the example's README says (a `replace` to it), then the program built with an empty build cache,
  // again on that cache, and once on the usual one, which the Go host's builds in each `up` use.
  const goSdk = generate(["go"], join(work, "sdks")).go;
  const goEnv = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, ...GO_ENV, ...extra });
  execFileSync("go", ["mod", "edit", `-replace=${GO_SDK_MODULE}=${goSdk}`], { cwd: go, env: goEnv() });
  const emptyCache = goEnv({ GOCACHE: join(work, "go-build-cache") });
  const cold = await timed("go", ["build", "-o", "/dev/null", "."], go, emptyCache);
  const warm = await timed("go", ["build", "-o", "/dev/null", "."], go, emptyCache);
  execFileSync("go", ["build", "-o", "/dev/null", "."], { cwd: go, env: goEnv() });
  const pythonInstall = await pythonVirtualenv(work, join(python, "requirements.txt"));
  // Without the link the host makes a virtualenv of the requirements alone there: the program cannot import the SDK.
  symlinkSync(join(work, "venv"), join(python, "venv"));
  return { dirs: { typescript, yaml, java, go, python }, goBuild: { cold, warm }, pythonInstall };
}

interface PythonInstall {
  /** The virtualenv's bin folder, first on PATH for the Python program's runs. */
  bin: string;
  wheel: Timed;
  /** `pip install -r requirements.txt <wheel>` into a fresh virtualenv, and of the requirements alone into another. */
  withSdk: Timed;
  requirementsOnly: Timed;
}

/** The Python SDK as the example's README says: generated, built into a wheel, installed with the requirements. */
async function pythonVirtualenv(work: string, requirements: string): Promise<PythonInstall> {
  const sdk = generate(["python"], join(work, "sdks")).python;
  const venv = (name: string) => {
    execFileSync("python3", ["-m", "venv", join(work, name)]);
    return join(work, name, "bin", "pip");
  };
  const wheels = join(work, "wheels");
  const build = venv("venv-build");
  // Once untimed: pip's cache then holds the requirements for both timed installs.
  execFileSync(build, ["install", "--quiet", "-r", requirements]);
  const wheel = await timed(build, ["wheel", "--quiet", "--no-deps", "--wheel-dir", wheels, sdk], work, process.env);
  const requirementsOnly = await timed(venv("venv-requirements"), ["install", "--quiet", "-r", requirements], work, process.env);
  const withSdk = await timed(venv("venv"), ["install", "--quiet", "-r", requirements, join(wheels, readdirSync(wheels)[0]!)], work, process.env);
  return { bin: join(work, "venv", "bin"), wheel, withSdk, requirementsOnly };
}

/** `generate()` of scripts/sdk-gen.ts for one language in a process of its own (what `npm run sdk:gen -- <language>` does). */
function sdkGeneration(work: string, language: "go" | "nodejs" | "python", round: number): Promise<Timed> {
  const source = `import { generate } from ${JSON.stringify(join(ROOT, "scripts", "sdk-gen.ts"))}; generate([${JSON.stringify(language)}], ${JSON.stringify(join(work, `sdks-${language}-${round}`))});`;
  return timed(process.execPath, ["--input-type=module", "-e", source], ROOT, process.env);
}

/** A new account of the emulator with the Leads cohort and the Forecasted spend forecast; its API key. */
export async function account(emulator: EmulatorReady, name: string): Promise<string> {
  return (await emulatorControl(emulator.url).createAccount({ name, forecasts: true })).api_key;
}

async function names(emulator: EmulatorReady, apiKey: string, collection: string): Promise<string[]> {
  const res = await fetch(`${emulator.url}/v1/${collection}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await res.json()) as { name: string }[]).map((r) => r.name);
}

/** The three operations of one language in a fresh stack against a fresh emulator, each checked for what it must do. */
async function languageRuns(cli: string, work: string, dir: string, language: Language, round: number, pythonBin: string): Promise<Record<Operation, Timed>> {
  const emulator = await startChild<EmulatorReady>("service.ts", ["emulator", "0"]);
  const state = mkdtempSync(join(work, `state-${language}-${round}-`));
  try {
    const url = `${emulator.ready.url}/v1`;
    const keys = { apiKey: await account(emulator.ready, "default"), northApiKey: await account(emulator.ready, "north") };
    const env: NodeJS.ProcessEnv = {
      ...pulumiEnv({
        cli, path: language === "python" ? [pythonBin] : [], home: join(state, "home"), backend: state,
      }),
      ...GO_ENV,
    };
    const stack = `${language}${round}`;
    const quiet = (args: string[], input = "") => execFileSync(join(cli, "pulumi"), [...args, "--non-interactive"], { cwd: dir, env, input, stdio: ["pipe", "ignore", "pipe"] });
    quiet(["stack", "select", "--create", "--stack", stack]);
    quiet(["config", "set", "audience:baseUrl", url]);
    quiet(["config", "set", "northBaseUrl", url]);
    for (const [key, value] of Object.entries({ "audience:apiKey": keys.apiKey, northApiKey: keys.northApiKey, warehousePassword: "bench-password" })) quiet(["config", "set", "--secret", key], value);
    const pulumi = (args: string[]) => timed(join(cli, "pulumi"), [...args, "--non-interactive"], dir, env);
    await methods(emulator.ready);

    const up = await pulumi(["up", "--yes"]);
    await methods(emulator.ready);
    const made = [await names(emulator.ready, keys.apiKey, "scopes"), await names(emulator.ready, keys.apiKey, "targets"), await names(emulator.ready, keys.apiKey, "connections")];
    if (JSON.stringify(made) !== JSON.stringify([["Adaptive discounting"], ["Adaptive discounting (hosted CSV)"], ["Analytics warehouse"]]) || !(await names(emulator.ready, keys.northApiKey, "cohorts")).includes("North leads")) {
      throw new Error(`${language} up made ${JSON.stringify(made)}`);
    }
    const noop = await pulumi(["up", "--yes", "--expect-no-changes"]);
    const writes = (await methods(emulator.ready)).filter((m) => m !== "GET");
    if (writes.length > 0) throw new Error(`${language} no-op up wrote: ${writes.join(" ")}`);
    const destroy = await pulumi(["destroy", "--yes"]);
    for (const collection of ["scopes", "targets", "connections"]) {
      const left = await names(emulator.ready, keys.apiKey, collection);
      if (left.length > 0) throw new Error(`${language} destroy left ${collection}: ${left.join(", ")}`);
    }
    quiet(["stack", "rm", "--yes", "--stack", stack]);
    return { up, "no-op up": noop, destroy };
  } finally {
    await emulator.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

export const pulumiLanguagesBench: Bench = {
  id: "languages",
  async run({ quick }) {
    const rounds = quick ? 1 : ROUNDS;
    const cli = pulumiDir();
    const work = mkdtempSync(join(tmpdir(), "audience-bench-languages-"));
    try {
      const { dirs, goBuild, pythonInstall } = await programs(work, installedModules(work));
      const runs: Record<Language, Record<Operation, Timed>[]> = { typescript: [], yaml: [], java: [], go: [], python: [] };
      const generation: Record<"go" | "nodejs" | "python", Timed[]> = { go: [], nodejs: [], python: [] };
      const loads = new LoadRange();
      for (let round = 0; round < rounds; round++) {
        for (const language of ["go", "nodejs", "python"] as const) generation[language].push(await sdkGeneration(work, language, round));
        for (const language of LANGUAGES) {
          loads.sample();
          runs[language].push(await languageRuns(cli, work, dirs[language], language, round, pythonInstall.bin));
        }
      }
      const load = `load ${loads.min.toFixed(0)}-${loads.max.toFixed(0)}, median of ${rounds}`;
      const of = (language: Language, operation: Operation, key: keyof Timed) => median(runs[language].map((r) => r[operation][key]));
      const rows: Row[] = [];
      for (const operation of OPERATIONS) {
        for (const language of ["yaml", "java", "go", "python"] as const) {
          for (const [key, unit] of [["ms", "wall"], ["cpuMs", "CPU"]] as const) {
            const value = of(language, operation, key);
            const baseline = of("typescript", operation, key);
            rows.push({
              what: `pulumi ${operation}, adaptive discounting (${unit})`,
              measured: `the ${{ yaml: "Pulumi YAML", java: "Java (Maven)", go: "Go", python: "Python" }[language]} example under the pulumi CLI`,
              value, baseline, baselineWhat: "the same pipeline in TypeScript, native face",
              unit: "ms", ratio: value / baseline, goal: "report", note: load,
            });
          }
        }
      }
      for (const [key, unit] of [["ms", "wall"], ["cpuMs", "CPU"]] as const) {
        const go = median(generation.go.map((t) => t[key]));
        const nodejs = median(generation.nodejs.map((t) => t[key]));
        const python = median(generation.python.map((t) => t[key]));
        const { wheel, withSdk, requirementsOnly } = pythonInstall;
        rows.push(
          { what: `SDK generation (${unit})`, measured: "the Go SDK (go mod tidy included)", value: go, baseline: nodejs, baselineWhat: "the Node.js SDK", unit: "ms", ratio: go / nodejs, goal: "report", note: load },
          {
            what: `go build of the Go example (${unit})`, measured: "with an empty build cache (Pulumi's Go SDK compiled too)", value: goBuild.cold[key], baseline: goBuild.warm[key],
            baselineWhat: "the same build again, cache warm", unit: "ms", ratio: goBuild.cold[key] / goBuild.warm[key], goal: "report", note: "one build each",
          },
          { what: `SDK generation (${unit})`, measured: "the Python SDK", value: python, baseline: nodejs, baselineWhat: "the Node.js SDK", unit: "ms", ratio: python / nodejs, goal: "report", note: load },
          {
            what: `pip install into a fresh virtualenv (${unit})`, measured: "the Python example's requirements and the SDK's wheel", value: withSdk[key], baseline: requirementsOnly[key],
            baselineWhat: "the requirements alone (pulumi==3.272.0), pip's cache warm", unit: "ms", ratio: withSdk[key] / requirementsOnly[key], goal: "report", note: `one install each; the wheel built in ${wheel[key].toFixed(0)} ms`,
          },
        );
      }
      return rows;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
