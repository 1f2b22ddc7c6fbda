// Prints the `__provider` text a program records: the shim serialized by Pulumi as `dynamic.Resource` does.
import * as pulumi from "@pulumi/pulumi";
import { provider } from "../../../provider/runtime/resources/shim.ts";

const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
process.stdout.write(JSON.stringify({ text: serialized.text, containsSecrets: serialized.containsSecrets }));
