// `audience pending`: declared with its code in provider/cli/pending.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("pending", "resolve the creates an interrupted up left pending (from a `pulumi stack export` or this engine's state)",
  async () => (await import("../pending.ts")).register);
