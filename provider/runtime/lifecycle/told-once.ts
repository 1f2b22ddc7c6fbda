// Pulumi's dynamic-provider host writes what a check, diff, read or delete threw to its stderr as
// `${error}: ${error.stack}`, then hands the error to the engine, which shows it on the resource: the user would read
// the message twice, then a stack. The host's own line for an error the provider has just thrown is left out.

/** The lines the host is about to write for errors just thrown; each kept until the host has had its turn. */
const expected = new Set<string>();
let installed = false;

function leaveOutHostLines(): void {
  if (installed) return;
  installed = true;
  const write = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === "string" && expected.delete(args[0])) return;
    write(...args);
  };
}

/** `operation` as the host calls it: what it throws is handed to the engine only, not written out again by the host. */
export function toldOnce<A extends unknown[], R>(operation: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await operation(...args);
    } catch (error) {
      leaveOutHostLines();
      // The host's catch runs in the microtasks right after this rejection; anything later is not its line.
      const line = `${String(error)}: ${(error as { stack?: string } | undefined)?.stack}`;
      expected.add(line);
      setImmediate(() => expected.delete(line));
      throw error;
    }
  };
}
