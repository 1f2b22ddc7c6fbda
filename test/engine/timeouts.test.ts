// customTimeouts as a program gives them (Go durations) and as the engine records and passes them (seconds).
import { describe, expect, it } from "vitest";
import { customTimeouts, durationSeconds } from "../../provider/engine/timeouts.ts";

describe("customTimeouts", () => {
  it("reads Go durations in seconds", () => {
    expect(durationSeconds("1h2m", "t")).toBe(3720);
    expect(durationSeconds("1m30s", "t")).toBe(90);
    expect(durationSeconds("1.5s", "t")).toBe(1.5);
    expect(durationSeconds(".5m", "t")).toBe(30);
    expect(durationSeconds("250ms", "t")).toBe(0.25);
    expect(durationSeconds("2h", "t")).toBe(7200);
  });

  it("refuses what is not a positive duration, naming the option", () => {
    for (const bad of ["5", "5 minutes", "1d", "m", "-1s", "1s ", "1h-2m"]) {
      expect(() => customTimeouts({ create: bad }), bad).toThrow(`customTimeouts.create: expected a duration such as "30s"`);
    }
    expect(() => customTimeouts({ delete: "0s" })).toThrow("customTimeouts.delete: must be longer than zero");
  });

  it("keeps only the operations given", () => {
    expect(customTimeouts({ create: "5m", update: "", delete: "30s" })).toEqual({ create: 300, delete: 30 });
    expect(customTimeouts()).toEqual({});
  });
});
