// `audience schema`: prints the package schema the plugin serves, for `pulumi package gen-sdk` or a review.
import type { Command } from "commander";
import { packageSchema } from "./schema.ts";

export function register(program: Command): void {
  program
    .command("schema")
    .action(() => {
      process.stdout.write(`${JSON.stringify(packageSchema(), null, 2)}\n`);
    });
}
