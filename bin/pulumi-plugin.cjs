// The plugin as the Pulumi CLI runs a folder with PulumiPlugin.yaml: Pulumi's Node.js runtime starts
// `@pulumi/pulumi/cmd/run-plugin <folder> <engine address>`, which requires the folder, i.e. this package's `main`,
// with the plugin's arguments left in process.argv. CommonJS, so that any Node loads it and says which Node it needs.
// Started from a folder without its dependencies (the package copied out of a program's node_modules by
// `pulumi plugin install --file`), it says which folder to install instead.
"use strict";

const { dirname } = require("node:path");

const FOLDER = dirname(__dirname);
const RELEASE = "its dependencies are not installed in " + FOLDER + ": install the plugin from the release folder that `npm run plugin:pack` makes "
  + "(pulumi plugin install resource audience <version> --file <it>), not from a program's node_modules";

function missingModule(error) {
  return Boolean(error) && (error.code === "MODULE_NOT_FOUND" || error.code === "ERR_MODULE_NOT_FOUND");
}

require("./node-version.cjs").stopIfTooOld();
try {
  require("./pulumi-version.cjs");
} catch (error) {
  process.stderr.write("error: the audience provider plugin did not start: " + error.message + (missingModule(error) ? "; " + RELEASE : "") + "\n");
  process.exit(1);
}
require("./require-node.cjs");
import("./pulumi-resource-audience.js").catch(function (error) {
  process.stderr.write("error: the audience provider plugin did not start: " + (missingModule(error) ? String(error.message).split("\n")[0] + "; " + RELEASE : (error && error.stack || error)) + "\n");
  process.exit(1);
});
