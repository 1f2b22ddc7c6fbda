import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Layers point one way: sdk <- provider runtime <- plugin <- engine <- cli; the emulator depends on the sdk only; nothing
// imports test/. Patterns match the import as written, so relative paths (`../engine/x.ts`) and the package's
// self-references (`pulumi-audience/emulator`) are both caught. Test files are exempt.
const segment = (names) => `(^|/)(${names.join("|")})(/|$)`;
const layers = (message, ...regexes) => ({
  "no-restricted-imports": ["error", { patterns: regexes.map((regex) => ({ regex, message })) }],
});
const TEST_FILES = ["test/**"];
const GENERIC_ENGINE = "the engine is generic: a package's markers and ways reach it through the extension the CLI hands it (provider/engine/extension.ts)";
/** `pulumi-audience` alone is the package's resources (provider/index.ts). */
const PACKAGE_ROOT = "^pulumi-audience$";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "**/.audience/", "coverage/"] },
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
    rules: layers("sdk/ is the bottom layer: it imports no provider, emulator or test code", segment(["provider", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["provider/runtime/**"],
    rules: layers("the provider runtime (what Pulumi loads) imports only the sdk and itself: not the engine, the CLI, the emulator or tests",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["provider/engine/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          { regex: segment(["cli", "test"]), message: "the engine imports the runtime, the provider plugin it hosts and the sdk, never the CLI built on it or tests" },
          // What a package adds (its markers, adoption, families, tokens, its lifecycle) reaches the engine through
          // the extension the CLI hands it (provider/engine/extension.ts).
          { regex: "(^|/)runtime/(lifecycle|families|resources)(/|$)|(^|/)plugin/(tokens|config|schema|server)\\.ts$", message: GENERIC_ENGINE },
          { regex: "(^|/)runtime/markers\\.ts$", importNames: ["PACKAGE", "DYNAMIC_TYPE_PREFIX"], message: GENERIC_ENGINE },
        ],
      }],
    },
  },
  {
    files: ["provider/plugin/**"],
    rules: layers("the provider plugin serves the runtime over gRPC to the engine that hosts it: never the engine, the CLI, the emulator or tests",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["provider/native/**"],
    rules: layers("the native resources are loaded by programs, as the runtime is: the runtime, the plugin's tokens and the sdk only",
      segment(["engine", "cli", "emulator", "test"]), PACKAGE_ROOT),
  },
  {
    files: ["emulator/**"],
    rules: layers("the emulator depends on the sdk only: no provider code, no tests", segment(["provider", "test"]), PACKAGE_ROOT),
  },
  // Start-up files that any Node must load, before this package's own requirements are checked.
  { files: ["**/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
);
