// A Go program's stack: the program's folder copied as pulumiStack() copies any program, its go.mod pointed at the
// Go SDK generated for this test file, and the plugin found under Pulumi.yaml `plugins:` (this package's installed
// node_modules), as a user's `pulumi plugin install` would find it.
import { execFile } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PLUGIN_IN_PACKAGE, pulumiStack, type PulumiStack } from "./cli.ts";
import { generatedSdk } from "./sdks.ts";

const GO_SDK_MODULE = "github.com/pulumi-audience/pulumi-audience/sdk/go";

/**
 * The Go environment of the CLI's runs: the machine's Go, and -trimpath so that the build cache serves the SDK and
 * the program from any folder (without it a package's folder is part of its cache key, and each test file's freshly
 * generated SDK would compile anew).
 */
export const GO_ENV = { GOTOOLCHAIN: "local", GOFLAGS: "-trimpath" };

const go = (args: string[], cwd: string) => promisify(execFile)("go", args, { cwd, env: { ...process.env, ...GO_ENV }, timeout: 600_000 });

/** A stack of the Go program in `program`, on the Go SDK generated for this test file, built once. */
export async function goStack(program: string, env: Record<string, string>): Promise<PulumiStack> {
  const stack = await pulumiStack({ program, env: { ...GO_ENV, ...env } });
  await go(["mod", "edit", `-replace=${GO_SDK_MODULE}=${generatedSdk("go")}`], stack.dir);
  // Built once here, where a cold build cache (minutes: Pulumi's Go SDK compiles too) has no command's time limit;
  // the host's `go build` in each preview and up then only links.
  await go(["build", "-o", "/dev/null", "."], stack.dir);
  appendFileSync(join(stack.dir, "Pulumi.yaml"), PLUGIN_IN_PACKAGE);
  return stack;
}
