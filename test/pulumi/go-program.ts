// A Go program's stack: the program's folder copied as pulumiStack() copies any program, its go.mod pointed at the
// Go SDK generated for this test file, and the plugin found under Pulumi.yaml `plugins:` (this package's installed
// node_modules), as a user's `pulumi plugin install` would find it.
import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { pulumiStack, type PulumiStack } from "./cli.ts";
import { generatedSdk } from "./sdks.ts";

export const GO_SDK_MODULE = "github.com/pulumi-audience/pulumi-audience/sdk/go";

/**
 * The Go environment of the CLI's runs: the machine's Go, and -trimpath so that the build cache serves the SDK and
 * the program from any folder (without it a package's folder is part of its cache key, and each test file's freshly
 * generated SDK would compile anew).
 */
export const GO_ENV = { GOTOOLCHAIN: "local", GOFLAGS: "-trimpath" };

export async function goStack(program: string, env: Record<string, string>): Promise<PulumiStack> {
  const stack = await pulumiStack({ program, env: { ...GO_ENV, ...env } });
  execFileSync("go", ["mod", "edit", `-replace=${GO_SDK_MODULE}=${generatedSdk("go")}`], { cwd: stack.dir, env: { ...process.env, ...GO_ENV } });
  appendFileSync(join(stack.dir, "Pulumi.yaml"), "plugins:\n  providers:\n    - name: audience\n      path: ./node_modules/pulumi-audience\n");
  return stack;
}
