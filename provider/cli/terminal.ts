// What a terminal is sent and taken from: escape codes (colour, lines redrawn in place) only where a person reads
// them, and stdin only where something is piped.
import { text } from "node:stream/consumers";
import { UsageError } from "./usage.ts";

/** Escape codes only on a terminal, and not when NO_COLOR is set (https://no-color.org) or the terminal is dumb. */
export function wantsColor(tty: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return tty && !env["NO_COLOR"] && env["TERM"] !== "dumb";
}

/** All that is piped on stdin; on a terminal with nothing piped, `refusal` (a usage error) instead of a wait for input
 * no one types. */
export async function pipedInput(refusal: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(refusal);
  return text(process.stdin);
}
