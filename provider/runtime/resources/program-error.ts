// An error a program stops on, in the package's words: Pulumi prints a RunError as its message alone (no stack, no
// promise), once.
import * as pulumi from "@pulumi/pulumi";

/**
 * A RunError whose message stays as written. Pulumi's serializer prefixes `error serializing property "…": ` to the
 * error of each input it passes through (the same object, mutated once per resource on the way), which names the
 * serializer's path rather than what failed; the message already names that. Its stack is the message too: a
 * rejection the runtime meets once the program's code has run (a lookup feeding resources that answers late) is
 * printed by its stack, where the package's frames say nothing a user acts on.
 */
export class ProgramError extends pulumi.RunError {
  constructor(message: string) {
    super(message);
    keepMessage(this, message);
  }
}

/** Makes `error` read as `message` alone, its stack too, whatever is written to it later. */
function keepMessage(error: Error, message: string): void {
  Object.defineProperty(error, "message", { get: () => message, set: () => {}, enumerable: false, configurable: true });
  Object.defineProperty(error, "stack", { value: message, writable: true, enumerable: false, configurable: true });
}

/**
 * Makes an error the runtime made into a ProgramError of `message`, in place: the runtime hands one error object to
 * every output waiting on what failed (a lookup's), so no other object would reach them.
 */
export function becomeProgramError(error: Error, message: string): ProgramError {
  Object.setPrototypeOf(error, ProgramError.prototype);
  // What RunError's constructor sets, and the runtime's RunError.isInstance looks for.
  Object.defineProperty(error, "__pulumiRunError", { value: true, enumerable: false, configurable: true });
  keepMessage(error, message);
  return error as ProgramError;
}

/**
 * `error` as a ProgramError (kept when it is one already), without the error as its `cause`: the runtime also writes
 * every program error to its trace with Node's colored `util.inspect`, which shows a cause's stack, and on the stack
 * lines source-map-support makes of the runtime's frames without the program preload
 * (`.../node_modules/@pulumi/output.ts`) Node 22's inspect runs for half a minute and more before it gives up.
 */
export function programError(error: unknown): ProgramError {
  if (error instanceof ProgramError) return error;
  return new ProgramError(error instanceof Error ? error.message : String(error));
}
