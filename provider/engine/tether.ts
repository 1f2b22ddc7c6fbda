// Processes the engine starts end when it does, however it ends (SIGKILL included): each gets a pipe from the
// engine on stdin and a preloaded module that exits once that pipe closes, which the kernel does when the engine dies.
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A CommonJS file to `--require`, written once per content to the temporary directory and reused. */
export function preloadFile(code: string): string {
  const file = join(tmpdir(), `pulumi-audience-preload-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.cjs`);
  if (!existsSync(file)) writeFileSync(file, code);
  return file;
}

// unref: the pipe alone does not keep a child alive once its own work is done.
const TETHER = `process.stdin.on("end", () => process.exit(129));
process.stdin.on("error", () => process.exit(129));
process.stdin.resume();
process.stdin.unref?.();
`;

/** Node arguments that tie a child to the engine; spawn it with `stdio[0]: "pipe"` and leave that pipe open. */
export function tetherArgs(): string[] {
  return ["--require", preloadFile(TETHER)];
}
