// While a scan runs, one line on stderr for a person at a terminal: the states read, the accounts compared and the
// time taken, redrawn in place, then cleared before the report is printed. A scan that ends within a moment shows
// none.
import type { Writable } from "node:stream";

export interface DriftProgress {
  /** State files given, and read so far. */
  states: number;
  statesRead: number;
  /** Accounts the states read so far name (in this shard), and compared so far. */
  accounts: number;
  accountsCompared: number;
}

/** The line shows once a scan has taken this long; then it is redrawn each second and as the scan moves on. */
const SHOWN_AFTER_MS = 500;
const TICK_MS = 1000;
/** Moves closer together than this are drawn at the next one. */
const REDRAWN_EVERY_MS = 100;

export function progressText(p: DriftProgress, elapsedMs: number): string {
  const states = p.statesRead < p.states ? `reading states: ${p.statesRead} of ${p.states}; ` : "";
  return `audience drift: ${states}accounts compared: ${p.accountsCompared} of ${p.accounts} (${Math.floor(elapsedMs / 1000)}s)`;
}

/** The progress line on `stream`; `live` false (off a terminal, NO_COLOR) writes nothing. */
export function progressLine(stream: Writable, live: boolean) {
  const started = Date.now();
  let latest: DriftProgress | undefined;
  let drawnAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    drawnAt = Date.now();
    stream.write(`\r${progressText(latest!, drawnAt - started)}\x1b[K`);
  };
  return {
    show(progress: DriftProgress): void {
      if (!live) return;
      latest = progress;
      if (timer === undefined) {
        // Unreferenced: the line never keeps the process alive.
        timer = setTimeout(() => {
          draw();
          timer = setInterval(draw, TICK_MS).unref();
        }, Math.max(0, started + SHOWN_AFTER_MS - Date.now())).unref();
      } else if (drawnAt !== undefined && Date.now() - drawnAt >= REDRAWN_EVERY_MS) {
        draw();
      }
    },
    clear(): void {
      clearTimeout(timer);
      timer = undefined;
      if (drawnAt !== undefined) stream.write("\r\x1b[K");
      drawnAt = undefined;
    },
  };
}
