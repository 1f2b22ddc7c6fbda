// The log of requests served, so tests can count the calls a client made.

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  query: string;
  status: number;
  account_id: string | null;
  at: string;
  duration_ms: number;
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
