// How the CLI reports what it was given wrong: one line, exit status 2 (a command's own where 2 means something
// else), as commander's own usage errors are made to.
import { CommanderError, type Command } from "commander";

/** A usage error from an argument parser that must not echo the argument (a secret), or from an action. */
export class UsageError extends CommanderError {
  constructor(message: string, exitCode = 2) {
    super(exitCode, "audience.usage", message);
  }
}

/** Commander's usage error, printed already, under the exit status its command gives what it was given wrong. */
class CommandUsageError extends CommanderError {
  constructor(status: number, error: CommanderError) {
    super(status, error.code, error.message);
  }
}

/**
 * For a command whose exit status 2 means something else (`audience drift`: something matched --fail-on;
 * `audience pending`: a create left for the user to decide): what it was given wrong exits `status` instead, still
 * in one line, whether commander or its action finds it. Subcommands made after this inherit commander's part.
 */
export function usageExitStatus(command: Command, status: number): Command {
  const setAction = command.action.bind(command);
  command.action = (fn) =>
    setAction(async function (this: Command, ...args: unknown[]) {
      try {
        await fn.apply(this, args);
      } catch (error) {
        throw error instanceof UsageError ? new UsageError(error.message, status) : error;
      }
    });
  return command.exitOverride((error) => {
    throw error.exitCode === 0 ? error : new CommandUsageError(status, error);
  });
}

/** Commander's message as one line; the full usage stays behind --help. */
export function oneLine(message: string): string {
  return `${message.trim().replace(/\s*\n\s*/g, " ")} (see --help)\n`;
}

/** Exit status and text for whatever a command threw: usage errors exit 2 (or their command's own status), failures
 * 1, help and --version 0. */
export function failure(error: unknown): { exitCode: number; text: string } {
  if (error instanceof UsageError) return { exitCode: error.exitCode, text: oneLine(`error: ${error.message}`) };
  // Commander has printed its own message already.
  if (error instanceof CommandUsageError) return { exitCode: error.exitCode, text: "" };
  if (error instanceof CommanderError) return { exitCode: error.exitCode === 0 ? 0 : 2, text: "" };
  return { exitCode: 1, text: `error: ${error instanceof Error ? error.message : String(error)}\n` };
}
