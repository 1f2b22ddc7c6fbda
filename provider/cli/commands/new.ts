// `audience new`: declared with its code in provider/cli/new.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("new", "create a program (Pulumi.yaml, package.json, tsconfig.json, index.ts) that `audience run` and the Pulumi CLI run as it is",
  async () => (await import("../new.ts")).register);
