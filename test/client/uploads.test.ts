// Uploads through the client's transport, over real loopback sockets: the bytes arrive as sent, a failed upload
// is retried like any other call, errors are typed and never carry the API key.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AudienceClient, ConnectionError, InvalidAuthorizationError, ServerError, ValidationFailedError } from "pulumi-audience/sdk/client";
import { listen, shutdown } from "./loopback.ts";

const API_KEY = "sk_live_uploads_0123456789";
const CSV = "store_id,store_name\n1,Main St\n";

let server: Server;
let baseUrl: string;
const hits: { method: string; url: string; type: string | undefined; authorization: string | undefined; body: Buffer }[] = [];
/** Answers the n-th request (0-based) of the current test. */
let handler: (req: IncomingMessage, res: ServerResponse, n: number) => void = () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      hits.push({ method: req.method ?? "", url: req.url ?? "", type: req.headers["content-type"], authorization: req.headers.authorization, body: Buffer.concat(chunks) });
      handler(req, res, hits.length - 1);
    });
  });
  baseUrl = await listen(server);
});

afterAll(() => shutdown(server));

function reset(next: typeof handler) {
  hits.length = 0;
  handler = next;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};
const stored = { directory: "stores", filename: "stores.csv", size: Buffer.byteLength(CSV) };

async function withClient<T>(run: (client: AudienceClient) => Promise<T>): Promise<T> {
  const client = new AudienceClient({ apiKey: API_KEY, baseUrl, retry: { maxRetries: 2, baseDelayMs: 1 } });
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

/** Every form an error may be printed or logged in. */
const printed = (error: unknown) => [inspect(error, { showHidden: true, depth: null }), JSON.stringify(error), String((error as Error).stack)];

describe("uploads through the client", () => {
  it("sends the file's bytes as CSV with the key, and answers the listed file", async () => {
    reset((_req, res) => json(res, 201, stored));
    const answer = await withClient((client) => client.upload("stores", "stores.csv", Buffer.from(CSV)));
    expect(answer).toEqual(stored);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ method: "POST", url: "/v1/uploads/stores/stores.csv", type: "text/csv", authorization: `Bearer ${API_KEY}` });
    expect(hits[0]!.body.toString("utf8")).toBe(CSV);
  });

  it("retries an upload the service answered 503, sending the same bytes again", async () => {
    reset((_req, res, n) => (n === 0 ? json(res, 503, { error: "UNAVAILABLE", note: "try again" }) : json(res, 201, stored)));
    const answer = await withClient((client) => client.upload("stores", "stores.csv", Buffer.from(CSV)));
    expect(answer).toEqual(stored);
    expect(hits.map((h) => h.body.toString("utf8"))).toEqual([CSV, CSV]);
  });

  it("retries an upload whose connection was reset", async () => {
    reset((req, res, n) => (n === 0 ? req.socket.destroy() : json(res, 201, stored)));
    const answer = await withClient((client) => client.upload("stores", "stores.csv.gz", Buffer.from([0x1f, 0x8b, 0x08])));
    expect(answer).toEqual(stored);
    expect(hits).toHaveLength(2);
    expect(hits[1]).toMatchObject({ url: "/v1/uploads/stores/stores.csv.gz", type: "application/octet-stream" });
  });

  it("gives up after the client's retries with a typed error", async () => {
    reset((_req, res) => json(res, 503, { error: "UNAVAILABLE" }));
    const error = await withClient((client) => client.upload("stores", "stores.csv", Buffer.from(CSV))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ method: "POST", path: "/uploads/stores/stores.csv", status: 503, attempts: 3 });
  });

  it("fails a refused key with a typed error that never contains the key, even when the service echoes it", async () => {
    reset((req, res) => json(res, 401, { error: "INVALID_AUTHORIZATION", note: `key ${String(req.headers.authorization)} is not valid` }));
    const error = await withClient((client) => client.upload("stores", "stores.csv", Buffer.from(CSV))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAuthorizationError);
    expect((error as Error).message).toBe("POST /uploads/stores/stores.csv: 401 INVALID_AUTHORIZATION: key Bearer <secret> is not valid");
    for (const text of printed(error)) expect(text).not.toContain(API_KEY);
    expect(hits).toHaveLength(1);
  });

  it("names the offending member of a refused file name", async () => {
    reset((_req, res) => json(res, 400, { error: "VALIDATION_FAILED", validationErrors: [{ path: "filename", message: "must end with .csv" }] }));
    const error = await withClient((client) => client.upload("stores", "stores.zip", Buffer.from(CSV))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).validationErrors).toEqual([expect.objectContaining({ path: "filename" })]);
  });

  it("lists uploads, retrying a reset connection, and downloads a file's bytes unchanged", async () => {
    const gzip = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xfe]);
    reset((req, res, n) => {
      if (n === 0) return req.socket.destroy();
      if (req.url === "/v1/uploads") return json(res, 200, [stored]);
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(gzip);
    });
    await withClient(async (client) => {
      expect(await client.listUploads()).toEqual([stored]);
      expect(Buffer.from(await client.download("stores", "stores.csv.gz"))).toEqual(gzip);
    });
    expect(hits.map((h) => `${h.method} ${h.url}`)).toEqual(["GET /v1/uploads", "GET /v1/uploads", "GET /v1/uploads/stores/stores.csv.gz"]);
  });

  it("reports a connection that keeps failing as a ConnectionError without the key", async () => {
    reset((req) => req.socket.destroy());
    const error = await withClient((client) => client.upload("stores", "stores.csv", Buffer.from(CSV))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ attempts: 3, beforeSend: false });
    for (const text of printed(error)) expect(text).not.toContain(API_KEY);
  });
});
