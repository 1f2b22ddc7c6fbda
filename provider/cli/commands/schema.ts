// `audience schema`: declared with its code in provider/plugin/command.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("schema", "print the audience package schema (Pulumi package metaschema JSON) that the provider plugin serves",
  async () => (await import("../../plugin/command.ts")).register);
