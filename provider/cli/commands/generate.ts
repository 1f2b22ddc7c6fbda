// `audience generate`: declared with its code in provider/cli/generate.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("generate", "write a Pulumi program that adopts the account's existing resources (from AUDIENCE_API_KEY / AUDIENCE_BASE_URL)",
  async () => (await import("../generate.ts")).register);
