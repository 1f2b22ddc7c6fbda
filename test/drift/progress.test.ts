// The progress line of a scan: drawn in place on a terminal once the scan takes a while, redrawn each second and as
// the scan moves on, cleared before the report.
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { progressLine, progressText, type DriftProgress } from "../../provider/cli/drift/progress.ts";

function stream(): { sink: Writable; written: string[] } {
  const written: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => void (written.push(chunk.toString()), done()) });
  return { sink, written };
}

const start: DriftProgress = { states: 3, statesRead: 0, accounts: 0, accountsCompared: 0 };
const reading: DriftProgress = { states: 3, statesRead: 1, accounts: 2, accountsCompared: 0 };
const comparing: DriftProgress = { states: 3, statesRead: 3, accounts: 5, accountsCompared: 4 };
const line = (p: DriftProgress, ms: number) => `\r${progressText(p, ms)}\x1b[K`;

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("drift progress", () => {
  it("says the states read while there are more, then the accounts compared, with the time taken", () => {
    expect(progressText(reading, 1999)).toBe("audience drift: reading states: 1 of 3; accounts compared: 0 of 2 (1s)");
    expect(progressText(comparing, 12_000)).toBe("audience drift: accounts compared: 4 of 5 (12s)");
  });

  it("shows after half a second even while nothing moves, then each second, and as the scan moves on", () => {
    const { sink, written } = stream();
    const progress = progressLine(sink, true);
    progress.show(start);
    vi.advanceTimersByTime(499);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toEqual([line(start, 500)]);
    vi.advanceTimersByTime(50);
    progress.show(reading); // within 100 ms of the last drawing: drawn at the next
    vi.advanceTimersByTime(50);
    progress.show(comparing);
    vi.advanceTimersByTime(900);
    progress.clear();
    vi.advanceTimersByTime(5000);
    expect(written).toEqual([line(start, 500), line(comparing, 600), line(comparing, 1500), "\r\x1b[K"]);
  });

  it("draws nothing for a scan that ends within half a second, nor off a terminal", () => {
    const { sink, written } = stream();
    const quick = progressLine(sink, true);
    quick.show(comparing);
    vi.advanceTimersByTime(499);
    quick.clear();
    const off = progressLine(sink, false);
    off.show(comparing);
    vi.advanceTimersByTime(5000);
    off.clear();
    expect(written).toEqual([]);
  });
});
