// A stand-in for the Pulumi engine's own gRPC server, as a plugin sees it: the Engine service's Log, recorded.
import type { ServerUnaryCall, sendUnaryData, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { LogRequest } from "@pulumi/pulumi/proto/engine_pb.js";
import { emptyProto, engineProto, engineRpc, grpc } from "../../provider/protocol/proto.ts";

export interface LoggedMessage {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  urn: string;
  ephemeral: boolean;
}

export interface FakeEngine {
  address: string;
  logs: LoggedMessage[];
  /** Resolves with the first message (already received or to come) that `match` accepts. */
  next(match: (m: LoggedMessage) => boolean, timeoutMs?: number): Promise<LoggedMessage>;
  close(): Promise<void>;
}

const SEVERITIES: Record<number, LoggedMessage["severity"]> = {
  [engineProto.LogSeverity.DEBUG]: "debug",
  [engineProto.LogSeverity.INFO]: "info",
  [engineProto.LogSeverity.WARNING]: "warning",
  [engineProto.LogSeverity.ERROR]: "error",
};

export async function startFakeEngine(): Promise<FakeEngine> {
  const logs: LoggedMessage[] = [];
  const waiting: { match: (m: LoggedMessage) => boolean; resolve: (m: LoggedMessage) => void }[] = [];
  const server = new grpc.Server();
  const service = {
    log(call: ServerUnaryCall<LogRequest, unknown>, callback: sendUnaryData<unknown>) {
      const req = call.request;
      const logged: LoggedMessage = { severity: SEVERITIES[req.getSeverity()] ?? "info", message: req.getMessage(), urn: req.getUrn(), ephemeral: req.getEphemeral() };
      logs.push(logged);
      for (const w of waiting.filter((w) => w.match(logged))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(logged);
      }
      callback(null, new emptyProto.Empty());
    },
  };
  server.addService(engineRpc.EngineService, service as unknown as UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  return {
    address: `127.0.0.1:${port}`,
    logs,
    next(match, timeoutMs = 20_000) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log message within ${timeoutMs}ms; received: ${JSON.stringify(logs)}`)), timeoutMs);
        waiting.push({ match, resolve: (m) => { clearTimeout(timer); resolve(m); } });
      });
    },
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
