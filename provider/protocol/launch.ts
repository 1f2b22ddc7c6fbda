// Starting a provider plugin process the way Pulumi's engine does: spawn it, read the port it prints on its first
// line of stdout, then speak gRPC to 127.0.0.1:<port>. Serves the dynamic-provider host and this package's plugin.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export interface LaunchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** What the plugin prints after its port (stdout) and on stderr, a line at a time. */
  onOutput?: (line: string) => void;
  /** The executable to run with `args`, as Pulumi runs a plugin's binary or launcher; default this Node. */
  command?: string;
}

export interface LaunchedPlugin {
  child: ChildProcess;
  port: string;
  /** The last lines the plugin wrote to stderr, to explain a failure. */
  stderr: string[];
}

const launched = new Set<ChildProcess>();
// A plugin must not outlive the process that started it.
process.once("exit", () => {
  for (const child of launched) child.kill("SIGKILL");
});

/**
 * Runs `node <args>` and waits for the port; fails with the plugin's stderr when it exits first. The plugin gets a
 * pipe on stdin that stays open while this process lives (a preload given in `args` may exit when it closes), and
 * its own process group, so a terminal's Ctrl-C reaches the starter only, which lets calls in flight finish.
 */
export async function launchPlugin(name: string, args: string[], options: LaunchOptions): Promise<LaunchedPlugin> {
  const child = spawn(options.command ?? process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  launched.add(child);
  child.once("exit", () => launched.delete(child));
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    stderr.push(line);
    if (stderr.length > 50) stderr.shift();
    options.onOutput?.(line);
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve, reject) => {
    let first = true;
    lines.on("line", (line) => {
      if (first) {
        first = false;
        resolve(line.trim());
      } else options.onOutput?.(line);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the ${name} exited (code ${code}) before listening:\n${stderr.join("\n")}`)));
  });
  if (!/^\d+$/.test(port)) {
    child.kill();
    throw new Error(`the ${name} printed "${port}" instead of its port`);
  }
  return { child, port, stderr };
}

/** Stops a launched plugin, resolving once it has exited. */
export async function stopPlugin(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill();
  await exited;
}
