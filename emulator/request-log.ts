// The log of requests received, so tests can count the calls a client made and see what each met: an
// injected fault, a reset connection, or an ordinary answer.

/** What an injected fault did to a request. */
export interface AppliedFault {
  status?: number;
  latency_ms?: number;
  reset?: "before" | "after";
}

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: string;
  /** The status the service answered (or, reset after processing, would have); null when it never answered. */
  status: number | null;
  account_id: string | null;
  at: string;
  duration_ms: number;
  fault: AppliedFault | null;
  /**
   * How the connection ended early, if it did: `before` the request was processed (nothing changed), `after`
   * (it took effect, the answer was lost), or `client` (the client closed it before the answer).
   */
  reset: "before" | "after" | "client" | null;
}

/** How many requests the log keeps: the latest. */
export const REQUEST_LOG_LIMIT = 10_000;

export class RequestLog {
  /** The latest REQUEST_LOG_LIMIT entries; once full, a ring whose oldest is at `start` (adding moves no other entry). */
  private entries: (Omit<LoggedRequest, "at"> & { at: number })[] = [];
  private start = 0;
  private seq = 0;

  /** Logs a request that ended now. */
  add(entry: Omit<LoggedRequest, "seq" | "at">): void {
    // The time is kept as a number and written out only when the log is read.
    const logged = { seq: ++this.seq, at: Date.now(), ...entry };
    if (this.entries.length < REQUEST_LOG_LIMIT) {
      this.entries.push(logged);
    } else {
      this.entries[this.start] = logged;
      this.start = (this.start + 1) % REQUEST_LOG_LIMIT;
    }
  }

  list(filter: { method?: string; path?: string; since?: number } = {}): LoggedRequest[] {
    const inOrder = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    return inOrder.filter((e) => (filter.method === undefined || e.method === filter.method.toUpperCase())
      && (filter.path === undefined || e.path.includes(filter.path))
      && (filter.since === undefined || e.seq > filter.since))
      .map((e) => ({ ...e, at: new Date(e.at).toISOString() }));
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
  }
}
