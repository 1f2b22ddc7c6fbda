// What the plugin tells the user (a warning, a build's progress) goes through the engine's Log service: the Pulumi CLI
// hides a resource plugin's stdout and stderr. The engine's address comes as the plugin's argument, in Handshake, or
// in Attach (a plugin started by hand for PULUMI_DEBUG_PROVIDERS); until one is known, or when the engine cannot be
// reached, a message is written to stderr, where our own engine's plugin host still reads it.
import type { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import type { LogSeverity as EngineSeverity } from "@pulumi/pulumi/proto/engine_pb.js";
import { engineProto, engineRpc, grpc } from "../protocol/proto.ts";

export type LogSeverity = "debug" | "info" | "warning" | "error";

const SEVERITIES: Record<LogSeverity, EngineSeverity> = {
  debug: engineProto.LogSeverity.DEBUG,
  info: engineProto.LogSeverity.INFO,
  warning: engineProto.LogSeverity.WARNING,
  error: engineProto.LogSeverity.ERROR,
};

export interface EngineLog {
  /** The engine to send to from now on (the last address given wins). */
  connect(address: string): void;
  /** Sends one message about `urn` ("" for none); `ephemeral`: a passing status, shown while it holds. */
  log(severity: LogSeverity, message: string, urn: string, ephemeral?: boolean): Promise<void>;
  close(): void;
}

/** `fallback` gets a line for stderr when there is no engine to send to. */
export function engineLog(fallback: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): EngineLog {
  let client: EngineClient | undefined;
  let address: string | undefined;
  return {
    connect(next) {
      if (next === "" || next === address) return;
      client?.close();
      address = next;
      client = new engineRpc.EngineClient(next, grpc.credentials.createInsecure()) as unknown as EngineClient;
    },
    log(severity, message, urn, ephemeral = false) {
      const line = `${severity}: ${message}`;
      if (!client) {
        fallback(line);
        return Promise.resolve();
      }
      const req = new engineProto.LogRequest();
      req.setSeverity(SEVERITIES[severity]);
      req.setMessage(message);
      req.setUrn(urn);
      req.setEphemeral(ephemeral);
      const to = client;
      return new Promise((resolve) => {
        to.log(req, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (error) => {
          if (error) fallback(`${line} (the engine at ${address} did not take it: ${error.details || error.message})`);
          resolve();
        });
      });
    },
    close() {
      client?.close();
      client = undefined;
    },
  };
}

/**
 * The engine's address among a plugin's arguments: the first that is no flag, as the engine may put `--logtostderr`,
 * `-v=9` and `--tracing <endpoint>` before it.
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--tracing") i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}
