// The executable `--policy-pack` is given where the Node.js language host cannot start a pack folder itself (older
// hosts, v3.68's say, answer RunPlugin "not supported"): it starts the installed pack as a current host does.
// docs/policy.md shows the same script to users of such hosts; the tests run most previews through it, and the folder
// itself through the host built here.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Writes `run-audience-policy` into the program folder `dir` (its node_modules holds pulumi-audience); its path. */
export function writePolicyLauncher(dir: string): string {
  const path = join(dir, "run-audience-policy");
  writeFileSync(path, [
    "#!/bin/sh",
    'cd "$(dirname "$0")/node_modules/pulumi-audience/policy" || exit 1',
    `exec node "$(node -p "require.resolve('@pulumi/pulumi/cmd/run-policy-pack')")" "$1" .`,
    "",
  ].join("\n"));
  chmodSync(path, 0o755);
  return path;
}
