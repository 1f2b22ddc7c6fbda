// Pulumi's generated gRPC stubs (CommonJS, shipped in @pulumi/pulumi/proto) loaded for ESM: the plugin's and the engine's.
// Each loads on its first use: grpc-js and the stubs take a tenth of a second to load, which commands that start no
// server and no host (a destroy of this package's resources, `audience config`) never pay.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** The module `id`, required when one of its members is first read. */
function onFirstUse<T extends object>(id: string): T {
  let loaded: T | undefined;
  const real = () => (loaded ??= require(id) as T);
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // A proxy may only report a property of its own target as non-configurable.
      return d && { ...d, configurable: true };
    },
  });
}

export const grpc = onFirstUse<typeof import("@grpc/grpc-js")>("@grpc/grpc-js");
export const resourceProto = onFirstUse<typeof import("@pulumi/pulumi/proto/resource_pb.js")>("@pulumi/pulumi/proto/resource_pb.js");
export const resourceRpc = onFirstUse<typeof import("@pulumi/pulumi/proto/resource_grpc_pb.js")>("@pulumi/pulumi/proto/resource_grpc_pb.js");
export const engineProto = onFirstUse<typeof import("@pulumi/pulumi/proto/engine_pb.js")>("@pulumi/pulumi/proto/engine_pb.js");
export const engineRpc = onFirstUse<typeof import("@pulumi/pulumi/proto/engine_grpc_pb.js")>("@pulumi/pulumi/proto/engine_grpc_pb.js");
export const providerProto = onFirstUse<typeof import("@pulumi/pulumi/proto/provider_pb.js")>("@pulumi/pulumi/proto/provider_pb.js");
export const providerRpc = onFirstUse<typeof import("@pulumi/pulumi/proto/provider_grpc_pb.js")>("@pulumi/pulumi/proto/provider_grpc_pb.js");
export const structProto = onFirstUse<typeof import("google-protobuf/google/protobuf/struct_pb.js")>("google-protobuf/google/protobuf/struct_pb.js");
export const emptyProto = onFirstUse<typeof import("google-protobuf/google/protobuf/empty_pb.js")>("google-protobuf/google/protobuf/empty_pb.js");
export const pluginProto = onFirstUse<typeof import("@pulumi/pulumi/proto/plugin_pb.js")>("@pulumi/pulumi/proto/plugin_pb.js");
export const anyProto = onFirstUse<typeof import("google-protobuf/google/protobuf/any_pb.js")>("google-protobuf/google/protobuf/any_pb.js");

/**
 * Options of the gRPC servers a program or the Pulumi CLI calls (the monitor, the plugin): messages as large as a
 * stack's, and no channelz, the call and socket statistics grpc-js keeps for a debugging service nothing here serves.
 */
export const SERVER_OPTIONS = { "grpc.max_receive_message_length": 400 * 1024 * 1024, "grpc.enable_channelz": 0 } as const;

/** Resolves a module path inside the @pulumi/pulumi the program itself uses, falling back to ours. */
export function resolvePulumiModule(fromDir: string, subpath: string): string {
  for (const base of [`${fromDir}/package.json`, import.meta.url]) {
    try {
      return createRequire(base).resolve(`@pulumi/pulumi/${subpath}`);
    } catch {
      // not installed there: try the next place
    }
  }
  throw new Error(`@pulumi/pulumi/${subpath} is not installed next to ${fromDir}; run npm install there`);
}
export const statusProto = onFirstUse<typeof import("@pulumi/pulumi/proto/status_pb.js")>("@pulumi/pulumi/proto/status_pb.js");
