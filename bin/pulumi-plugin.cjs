// The plugin as the Pulumi CLI runs a folder with PulumiPlugin.yaml: Pulumi's Node.js runtime starts
// `@pulumi/pulumi/cmd/run-plugin <folder> <engine address>`, which requires the folder, i.e. this package's `main`,
// with the plugin's arguments left in process.argv. CommonJS, so that any Node loads it and says which Node it needs.
"use strict";

require("./require-node.cjs");
import("./pulumi-resource-audience.js").catch(function (error) {
  process.stderr.write("error: the audience provider plugin did not start: " + (error && error.stack || error) + "\n");
  process.exit(1);
});
