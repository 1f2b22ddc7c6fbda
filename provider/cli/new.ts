// `audience new [DIR]`: a program that runs at once, through `audience run` and under the Pulumi CLI, as `pulumi new`
// makes one: Pulumi.yaml, package.json, tsconfig.json and the README's first pipeline as index.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { dependencyFor, thisPackage, type Manifest } from "./dependency.ts";
import { UsageError } from "./usage.ts";

/** The first pipeline of the README (a test holds the two equal). */
export const FIRST_PIPELINE = `import * as audience from "pulumi-audience";

const leads = audience.getCohortOutput({ name: "Leads" });
const spend = audience.getForecastOutput({ name: "Forecasted spend" });

const scope = new audience.Scope("adaptive-discounting", {
  name: "Adaptive discounting",
  population: { cohortIds: [leads.id] },
  payload: { forecastIds: [spend.id] },
  preview: true,            // turn off once the preview build looks right: that enables the pipeline
  waitFor: "ready",         // wait for the build; a failed build fails the step and keeps the resource in state
});

const csv = new audience.Target("adaptive-discounting-csv", {
  name: "Adaptive discounting (hosted CSV)",
  scopeId: scope.id,
  representation: { mode: "identified" },
  options: { type: "hosted_csv" },
});

export const csvUrl = csv.outputUrl;
`;

const PROJECT_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export interface Scaffold {
  /** Project name (Pulumi.yaml `name`, package.json `name`). */
  name: string;
  /** This package's version and dependencies: the program's package.json pins its tools alike, and asks for the
   * @pulumi/pulumi versions the package supports (its peer range). */
  manifest: Manifest;
  /** Where pulumi-audience comes from: the published version, or from a checkout `file:./<its npm pack tarball>`. */
  dependency: string;
}

/** The files of a new program, by name. */
export function scaffoldFiles({ name, manifest, dependency }: Scaffold): Record<string, string> {
  const pulumiYaml = [
    `name: ${name}`,
    "description: An audience-prediction pipeline",
    "runtime:",
    "  name: nodejs",
    "  options:",
    `    # Node ${manifest.engines.node} runs index.ts as it is (no build, no ts-node); the preload stops an older Node`,
    "    # with one line saying which Node to get, and lets a program that throws print its error and exit.",
    "    typescript: false",
    "    nodeargs: --require=pulumi-audience/require-node",
    "main: index.ts",
    "",
  ].join("\n");
  const packageJson = {
    name: name.toLowerCase(),
    private: true,
    type: "module",
    engines: { node: manifest.engines.node },
    scripts: { typecheck: "tsc --noEmit" },
    dependencies: { "@pulumi/pulumi": manifest.peerDependencies["@pulumi/pulumi"], "pulumi-audience": dependency },
    devDependencies: { "@types/node": manifest.devDependencies["@types/node"], typescript: manifest.devDependencies["typescript"] },
  };
  const tsconfig = {
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      types: ["node"],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    },
    include: ["*.ts"],
  };
  return {
    "Pulumi.yaml": pulumiYaml,
    "package.json": `${JSON.stringify(packageJson, null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(tsconfig, null, 2)}\n`,
    "index.ts": FIRST_PIPELINE,
    ".gitignore": "node_modules/\n.audience/\n",
  };
}

/**
 * A checkout packed into `dir` as `npm pack` makes a published package (its `prepare` builds it): the tarball's file
 * name, which a `file:./` dependency names so that `npm ci` installs the same package on any machine.
 */
function packInto(root: string, dir: string): string {
  process.stderr.write(`Packing ${root} into ${dir} (npm pack, which builds it first)...\n`);
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8", shell: process.platform === "win32" });
  const packed = pack.status === 0 ? (JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as { filename: string }[])[0] : undefined;
  if (!packed) throw new Error(`npm pack failed in ${root} (status ${pack.status}): fix the build there (npm run build) and run again\n${pack.stderr}`);
  return packed.filename;
}


export function register(program: Command): void {
  program
    .command("new")
    .argument("[dir]", "where to create it (created if missing; must be empty)", ".")
    .option("-n, --name <name>", "project name (default: the directory's name)")
    .option("--generate-only", "write the files without running npm install")
    .action((dir: string, flags: { name?: string; generateOnly?: boolean }) => {
      const target = resolve(dir);
      const name = flags.name ?? basename(target);
      if (!PROJECT_NAME.test(name)) throw new UsageError(`project name "${name}": allowed are letters, digits, "-", "_" and ".", 1 to 100 characters (--name)`);
      if (existsSync(target) && !statSync(target).isDirectory()) throw new UsageError(`${target} is a file: name a new or empty directory`);
      if (existsSync(target) && readdirSync(target).length > 0) throw new UsageError(`${target} is not empty: name a new or empty directory`);
      const { manifest, root, fromCheckout } = thisPackage();
      mkdirSync(target, { recursive: true });
      const tarball = fromCheckout ? packInto(root, target) : undefined;
      const files = scaffoldFiles({ name, manifest, dependency: tarball ? `file:./${tarball}` : dependencyFor(target) });
      for (const [file, content] of Object.entries(files)) writeFileSync(join(target, file), content);
      process.stdout.write(`Created ${name} in ${target}: ${Object.keys(files).join(", ")}\n`);
      if (!flags.generateOnly) {
        const install = spawnSync("npm", ["install"], { cwd: target, stdio: "inherit", shell: process.platform === "win32" });
        if (install.status !== 0) throw new Error(`npm install failed in ${target}; the files are written: run npm install there once fixed`);
      }
      const steps = [
        `cd ${dir}`,
        ...(flags.generateOnly ? ["npm install"] : []),
        "export PULUMI_CONFIG_PASSPHRASE=...                       # encrypts the stack's secrets",
        "npx audience config set audience:baseUrl https://<service>/v1",
        "npx audience config set --secret audience:apiKey <API_KEY>",
        "npx audience run preview                                  # or: pulumi preview",
      ];
      process.stdout.write(`Next:\n${steps.map((s) => `    ${s}\n`).join("")}`);
      if (tarball) {
        process.stdout.write(`pulumi-audience is ${tarball}, the checkout ${root} packed: keep it with the program (npm ci installs it on any machine); after changing the checkout, pack it again (npm pack --pack-destination ${target}) and run npm install.\n`);
      }
    });
}
