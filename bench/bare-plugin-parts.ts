// What the bench's bare plugins (bench/bare-plugin.ts, bench/pulumi-bare-plugin.ts) share: the one undici call each
// operation makes, Struct values, gRPC handlers from async functions, and serving as a plugin is served (the port
// printed first, then served until stopped). Nothing more than any plugin must do.
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from "@grpc/grpc-js";
import { Pool, request } from "./lean-undici.ts";
import { grpc, providerRpc, structProto } from "../provider/protocol/proto.ts";

export type Doc = Record<string, unknown>;
type Struct = InstanceType<typeof structProto.Struct>;

const base = new URL(process.env["AUDIENCE_BASE_URL"]!);
const pool = new Pool(base.origin);
const headers = { authorization: `Bearer ${process.env["AUDIENCE_API_KEY"]}`, "content-type": "application/json" };

/** The service's answer to one request; undefined when a GET finds nothing. */
export async function call(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: Doc): Promise<Doc | undefined> {
  const res = await request(pool, { method, path: `${base.pathname}${path}`, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await res.body.text();
  if (method === "GET" && res.statusCode === 404) return undefined;
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return text ? (JSON.parse(text) as Doc) : {};
}

export const struct = (doc: Doc) => structProto.Struct.fromJavaScript(doc as Parameters<typeof structProto.Struct.fromJavaScript>[0]);
export const plain = (s: Struct | undefined): Doc => s?.toJavaScript() ?? {};

/** A gRPC handler from an async function of the request. */
export function unary<Req, Res>(answer: (request: Req) => Promise<Res>) {
  return (rpc: ServerUnaryCall<Req, Res>, done: sendUnaryData<Res>) => {
    answer(rpc.request).then((res) => done(null, res), (error: Error) => done({ code: grpc.status.UNKNOWN, details: error.message }));
  };
}

/** Serves `handlers` as Pulumi's ResourceProvider on 127.0.0.1 and prints the port, as a plugin does. */
export function servePlugin(handlers: UntypedServiceImplementation): void {
  const server = new grpc.Server();
  server.addService(providerRpc.ResourceProviderService, handlers);
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    console.log(port);
  });
}
