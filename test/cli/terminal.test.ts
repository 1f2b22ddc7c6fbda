// Escape codes only for a person at a terminal: one rule for every command's colour and redrawn lines.
import { describe, expect, it } from "vitest";
import { wantsColor } from "../../provider/cli/terminal.ts";

describe("escape codes", () => {
  it("go to a terminal only, never with NO_COLOR or a dumb terminal", () => {
    expect(wantsColor(true, {})).toBe(true);
    expect(wantsColor(false, {})).toBe(false);
    expect(wantsColor(true, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor(true, { TERM: "dumb" })).toBe(false);
    expect(wantsColor(true, { NO_COLOR: "", TERM: "xterm-256color" })).toBe(true); // NO_COLOR counts when not empty
  });
});
