import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Layers point one way. At the bottom the sdk and the protocol kit (Pulumi's wire: values, stubs, plugin launch, markers),
// which imports nothing of ours; the provider runtime on them; the plugin and the native resources on the runtime; the
// engine on the protocol kit and the sdk only (a package reaches it through its extension); the CLI on all of them. The
// emulator depends on the sdk only; nothing imports test/. Inside a room, floors point one way too: the contract's modules
// import one another, never the index that re-exports them; the engine's extension and provider hosts share a ground
// floor that imports nothing of the engine; the emulator's core is handed its families and its
// state knows none, on a ground floor (emulator/model.ts) that imports nothing of the emulator. Patterns match the
// import as written, so relative paths (`../engine/x.ts`) and the package's self-references (`pulumi-audience/emulator`)
// are both caught. Test files are exempt.
const segment = (names) => `(^|/)(${names.join("|")})(/|$)`;
/** The rule of a config: each group a message and the patterns it refuses (a later config replaces it whole). */
const restrict = (...groups) => ({
  "no-restricted-imports": ["error", { patterns: groups.flatMap(([message, ...regexes]) => regexes.map((regex) => ({ regex, message }))) }],
});
const layers = (message, ...regexes) => restrict([message, ...regexes]);
const TEST_FILES = ["test/**"];
const GENERIC_ENGINE = "the engine is generic: it reads the protocol kit (provider/protocol) and the sdk; a package's runtime, plugin, markers and ways reach it through the extension the CLI hands it (provider/engine/extension.ts)";
/** `pulumi-audience` alone is the package's resources (provider/runtime/generated/dynamic-face.ts). */
const PACKAGE_ROOT = "^pulumi-audience$";
const moduleFile = (names) => `(^|/)(${names.join("|")})\\.ts$`;
const SDK_BOTTOM = ["sdk/ is the bottom layer: it imports no provider, emulator or test code", segment(["provider", "emulator", "test"]), PACKAGE_ROOT];
const CONTRACT_INDEX = ["inside the contract, import the module that holds a thing (a family's registry is registry.ts), never the index that re-exports them all", "^\\./index\\.ts$"];
const EMULATOR_SDK_ONLY = ["the emulator depends on the sdk only: no provider code, no tests", segment(["provider", "test"]), PACKAGE_ROOT];
const EMULATOR_HANDED = ["the emulator's core is handed its families (emulator/index.ts lists them): it never imports a family module", segment(["families"])];
const STATE_KNOWS_NO_FAMILY = ["the emulator's state knows no family: it reads a collection through KeptFamilies (model.ts), never the family modules, their registry, the context or what serves requests",
  segment(["families", "routes", "outputs", "world"]), moduleFile(["family", "registry", "context", "app", "builds", "rules", "webhooks", "ingest", "openapi", "openapi-document", "nouns"])];
const ENGINE_BELOW_CLI = ["the engine imports the protocol kit and the sdk, never the CLI built on it or tests", segment(["cli", "test"])];
// What a package adds (its markers, adoption, families, tokens, its lifecycle) reaches the engine through the extension
// the CLI hands it (provider/engine/extension.ts).
const ENGINE_GENERIC = [GENERIC_ENGINE, segment(["runtime", "plugin", "native"]), "^pulumi-audience(/(provider|native))?$"];
// The contract's index builds every family's schemas on load: a run that starts its program first must not pay it.
const ENGINE_NO_CONTRACT_INDEX = ["the engine imports the contract's module that holds what it needs (jsonEqual: sdk/contract/merge-patch.ts), never an index that builds every family's schemas before the program starts",
  "^pulumi-audience/sdk(/contract)?$", "(^|/)sdk(/contract)?/index\\.ts$"];
/** What the engine's provider rooms share (the extension, the hosts): below them all, so no cycle runs through it. */
const ENGINE_GROUND_FILES = ["provider/engine/resource-calls.ts", "provider/engine/plugin-launch.ts"];
const ENGINE_GROUND = ["the engine's ground floor (resource-calls.ts, plugin-launch.ts) is what its extension and provider hosts share: it imports nothing of the engine", "^\\./"];
const EMULATOR_GROUND = ["emulator/model.ts is the emulator's ground floor: every module builds on it, so it imports nothing of the emulator", "^\\.{1,2}/"];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "**/.audience/", "coverage/", "sdks/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", URL: "readonly", require: "readonly", module: "writable", __dirname: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    ignores: TEST_FILES,
    rules: layers("nothing outside test/ imports test/", segment(["test"])),
  },
  {
    files: ["sdk/**"],
    rules: restrict(SDK_BOTTOM),
  },
  {
    files: ["sdk/contract/**"],
    rules: restrict(SDK_BOTTOM, CONTRACT_INDEX),
  },
  {
    files: ["provider/runtime/**"],
    rules: layers("the provider runtime (what Pulumi loads) imports only the sdk, the protocol kit and itself: not the engine, the CLI, the emulator or tests",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["provider/protocol/**"],
    rules: layers("the protocol kit is Pulumi's wire, below every layer that speaks it: it imports nothing of this package",
      `${segment(["sdk", "runtime", "plugin", "native", "engine", "cli", "emulator", "test"])}|^pulumi-audience(/|$)`),
  },
  {
    files: ["provider/engine/**"],
    rules: restrict(ENGINE_BELOW_CLI, ENGINE_GENERIC, ENGINE_NO_CONTRACT_INDEX),
  },
  {
    files: ENGINE_GROUND_FILES,
    rules: restrict(ENGINE_BELOW_CLI, ENGINE_GENERIC, ENGINE_NO_CONTRACT_INDEX, ENGINE_GROUND),
  },
  {
    files: ["provider/plugin/**"],
    rules: layers("the provider plugin serves the runtime over gRPC to the engine that hosts it: never the engine, the CLI, the emulator or tests",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["provider/native/**"],
    rules: layers("the native resources are loaded by programs, as the runtime is: the runtime, the plugin's tokens, the protocol kit and the sdk only",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["policy/**"],
    rules: layers("the policy pack reads resources as the analyzer hands them: the sdk, the runtime's markers and shapes and the protocol kit only; never the plugin, native classes, engine, CLI, emulator or tests",
      segment(["plugin", "native", "engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["emulator/**"],
    rules: restrict(EMULATOR_SDK_ONLY),
  },
  {
    files: ["emulator/**"],
    ignores: ["emulator/families/**", "emulator/index.ts"],
    rules: restrict(EMULATOR_SDK_ONLY, EMULATOR_HANDED),
  },
  {
    files: ["emulator/state.ts", "emulator/state/**", "emulator/store.ts", "emulator/resource-index.ts", "emulator/masking.ts", "emulator/clock.ts"],
    rules: restrict(EMULATOR_SDK_ONLY, EMULATOR_HANDED, STATE_KNOWS_NO_FAMILY),
  },
  {
    files: ["emulator/model.ts"],
    rules: restrict(EMULATOR_SDK_ONLY, EMULATOR_GROUND),
  },
  // Start-up files that any Node must load, before this package's own requirements are checked.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
);
