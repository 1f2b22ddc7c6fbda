// `audience config`: declared with its code in provider/cli/config.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("config", "the stack's config, kept in Pulumi.<stack>.yaml beside Pulumi.yaml as `pulumi config` keeps it; `audience run` reads it",
  async () => (await import("../config.ts")).register);
