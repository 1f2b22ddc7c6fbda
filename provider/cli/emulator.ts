// `audience emulator`: serves the emulated service until SIGINT / SIGTERM.
import { startEmulator } from "pulumi-audience/emulator";

export interface EmulatorFlags {
  port: number;
  host: string;
  dataDir?: string;
  apiKey?: string;
}

/** Serves until SIGINT / SIGTERM; a port in use or refused is a one-line error and exit code 1. */
export async function runEmulatorCommand(options: EmulatorFlags): Promise<void> {
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
      : e.code === "EACCES" ? `permission denied (${e.message})`
      : e.code === "EEXIST" && options.dataDir !== undefined ? `--data-dir ${options.dataDir} is a file: give a directory (new, or one an emulator kept its data in)`
      : e.code === "ENOTDIR" && options.dataDir !== undefined ? `--data-dir ${options.dataDir}: a folder on its path is a file`
      : e.message;
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
}
