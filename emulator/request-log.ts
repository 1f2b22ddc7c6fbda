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

const LIMIT = 10_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;

  add(entry: Omit<LoggedRequest, "seq">): void {
    this.entries.push({ seq: ++this.seq, ...entry });
    if (this.entries.length > LIMIT) this.entries.splice(0, this.entries.length - LIMIT);
  }

  list(filter: { method?: string; path?: string; since?: number } = {}): LoggedRequest[] {
    return this.entries.filter((e) => (filter.method === undefined || e.method === filter.method.toUpperCase())
      && (filter.path === undefined || e.path.includes(filter.path))
      && (filter.since === undefined || e.seq > filter.since));
  }

  clear(): void {
    this.entries = [];
  }
}
