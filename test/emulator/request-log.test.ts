// The request log keeps the latest requests, oldest first, however many came before.
import { describe, expect, it } from "vitest";
import { RequestLog, REQUEST_LOG_LIMIT } from "../../emulator/request-log.ts";

const entry = (path: string) => ({
  method: "GET", path, query: "", status: 200, account_id: null, duration_ms: 0, fault: null, reset: null,
});

describe("the request log", () => {
  it("keeps the latest requests in the order they came once more came than it keeps", () => {
    const log = new RequestLog();
    const total = REQUEST_LOG_LIMIT + 25;
    for (let i = 1; i <= total; i++) log.add(entry(`/cohorts/${i}`));
    const kept = log.list();
    expect(kept).toHaveLength(REQUEST_LOG_LIMIT);
    expect(kept[0]).toMatchObject({ seq: 26, path: "/cohorts/26" });
    expect(kept.at(-1)).toMatchObject({ seq: total, path: `/cohorts/${total}`, at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/) });
    expect(kept.every((e, i) => i === 0 || e.seq === kept[i - 1]!.seq + 1)).toBe(true);
    expect(log.list({ since: total - 2 }).map((e) => e.seq)).toEqual([total - 1, total]);
  });

  it("starts empty again once cleared, numbering on", () => {
    const log = new RequestLog();
    for (let i = 0; i < REQUEST_LOG_LIMIT + 3; i++) log.add(entry("/a"));
    log.clear();
    log.add(entry("/b"));
    expect(log.list()).toEqual([expect.objectContaining({ path: "/b", seq: REQUEST_LOG_LIMIT + 4 })]);
  });
});
