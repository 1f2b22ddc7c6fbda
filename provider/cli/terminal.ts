// What a terminal is sent: escape codes (colour, lines redrawn in place) only where a person reads them.

/** Escape codes only on a terminal, and not when NO_COLOR is set (https://no-color.org) or the terminal is dumb. */
export function wantsColor(tty: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return tty && !env["NO_COLOR"] && env["TERM"] !== "dumb";
}
