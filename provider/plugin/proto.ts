// Pulumi's generated gRPC stubs (CommonJS, shipped in @pulumi/pulumi/proto) loaded for ESM: the plugin's and the engine's.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const grpc: typeof import("@grpc/grpc-js") = require("@grpc/grpc-js");
export const resourceProto: typeof import("@pulumi/pulumi/proto/resource_pb.js") = require("@pulumi/pulumi/proto/resource_pb.js");
export const resourceRpc: typeof import("@pulumi/pulumi/proto/resource_grpc_pb.js") = require("@pulumi/pulumi/proto/resource_grpc_pb.js");
export const engineProto: typeof import("@pulumi/pulumi/proto/engine_pb.js") = require("@pulumi/pulumi/proto/engine_pb.js");
export const engineRpc: typeof import("@pulumi/pulumi/proto/engine_grpc_pb.js") = require("@pulumi/pulumi/proto/engine_grpc_pb.js");
export const providerProto: typeof import("@pulumi/pulumi/proto/provider_pb.js") = require("@pulumi/pulumi/proto/provider_pb.js");
export const providerRpc: typeof import("@pulumi/pulumi/proto/provider_grpc_pb.js") = require("@pulumi/pulumi/proto/provider_grpc_pb.js");
export const structProto: typeof import("google-protobuf/google/protobuf/struct_pb.js") = require("google-protobuf/google/protobuf/struct_pb.js");
export const emptyProto: typeof import("google-protobuf/google/protobuf/empty_pb.js") = require("google-protobuf/google/protobuf/empty_pb.js");
export const pluginProto: typeof import("@pulumi/pulumi/proto/plugin_pb.js") = require("@pulumi/pulumi/proto/plugin_pb.js");
export const anyProto: typeof import("google-protobuf/google/protobuf/any_pb.js") = require("google-protobuf/google/protobuf/any_pb.js");

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
export const statusProto: typeof import("@pulumi/pulumi/proto/status_pb.js") = require("@pulumi/pulumi/proto/status_pb.js");
