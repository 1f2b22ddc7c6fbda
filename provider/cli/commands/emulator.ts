// `audience emulator`: options here; the emulator (provider/cli/emulator.ts) loads only when the command runs.
import { InvalidArgumentError, type Command } from "commander";
import type { EmulatorFlags } from "../emulator.ts";

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("must be a port number from 0 to 65535");
  return n;
}

export function define(program: Command): void {
  program
    .command("emulator")
    .description("run the emulated audience prediction service (prints its URL and the default account's API key)")
    .option("--port <port>", "port to listen on (0 picks a free one)", port, 8080)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data-dir <dir>", "keep state in this directory (in memory without it)")
    .option("--api-key <key>", "API key of the default account (a fresh one without it)")
    .action(async (flags: EmulatorFlags) => (await import("../emulator.ts")).runEmulatorCommand(flags));
}
