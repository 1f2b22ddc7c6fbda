// The stubs the plugin needs beyond the engine's (CommonJS, loaded for ESM).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

export const pluginProto: typeof import("@pulumi/pulumi/proto/plugin_pb.js") = require("@pulumi/pulumi/proto/plugin_pb.js");
export const anyProto: typeof import("google-protobuf/google/protobuf/any_pb.js") = require("google-protobuf/google/protobuf/any_pb.js");
export { emptyProto } from "../engine/proto.ts";
