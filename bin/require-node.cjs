// Stops the process with one line when its Node is too old for this package. Loaded first by bin/audience.js and
// preloaded into programs (`nodeargs: --require=pulumi-audience/require-node` in Pulumi.yaml), where an old Node
// would otherwise fail on the first `.ts` file with `Unknown file extension ".ts"`.
"use strict";

const problem = require("./node-version.cjs").nodeProblem(process.versions.node);
if (problem) {
  process.stderr.write("error: " + problem + "\n");
  process.exit(1);
}

require("./lazy-typescript.cjs");
