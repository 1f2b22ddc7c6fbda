// How the CLI reports what it was given wrong: one line, exit status 2, as commander's own usage errors are made to.
import { CommanderError } from "commander";

/** A usage error from an argument parser that must not echo the argument (a secret), or from an action. */
export class UsageError extends CommanderError {
  constructor(message: string) {
    super(2, "audience.usage", message);
  }
}

/** Commander's message as one line; the full usage stays behind --help. */
export function oneLine(message: string): string {
  return `${message.trim().replace(/\s*\n\s*/g, " ")} (see --help)\n`;
}

/** Exit status and text for whatever a command threw: usage errors exit 2, failures 1, help and --version 0. */
export function failure(error: unknown): { exitCode: number; text: string } {
  if (error instanceof UsageError) return { exitCode: 2, text: oneLine(`error: ${error.message}`) };
  // Commander has printed its own message already.
  if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? 0 : 2, text: "" };
  return { exitCode: 1, text: `error: ${error instanceof Error ? error.message : String(error)}\n` };
}
