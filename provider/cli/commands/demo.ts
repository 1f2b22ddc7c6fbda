// `audience demo` (also `npm run demo`); the demo (provider/cli/demo.ts) loads only when the command runs.
import type { Command } from "commander";

export function define(program: Command): void {
  program
    .command("demo")
    .description("start an emulated service, deploy examples/adaptive-discounting, enable it, read its CSV, show drift, destroy")
    .action(async () => {
      await (await import("../demo.ts")).runDemo();
    });
}
