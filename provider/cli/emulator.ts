// `audience emulator`: serves the emulated service until SIGINT / SIGTERM.
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { startEmulator } from "pulumi-audience/emulator";

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("must be a port number from 0 to 65535");
  return n;
}

export function register(program: Command): void {
  program
    .command("emulator")
    .description("Run the emulated audience prediction service (prints its URL and the default account's API key)")
    .option("--port <port>", "port to listen on (0 picks a free one)", port, 8080)
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--data-dir <dir>", "keep state in this directory (in memory without it)")
    .option("--api-key <key>", "API key of the default account (a fresh one without it)")
    .action(async (options: { port: number; host: string; dataDir?: string; apiKey?: string }) => {
      let emulator: Awaited<ReturnType<typeof startEmulator>>;
      try {
        emulator = await startEmulator({
          port: options.port, host: options.host,
          ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
          ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        });
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        const reason = e.code === "EADDRINUSE" ? `port ${options.port} on ${options.host} is already in use (--port 0 picks a free one)`
          : e.code === "EACCES" ? `permission denied (${e.message})` : e.message;
        process.stderr.write(`audience emulator: cannot start: ${reason}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`listening on ${emulator.url}\napi key ${emulator.apiKey}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await emulator.close();
    });
}
