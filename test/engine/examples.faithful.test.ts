// test/engine/examples.test.ts in the engine's CLI-faithful mode: the program uses this package installed from
// `npm pack`, dynamic resources go to Pulumi's own host through its launcher, as under the Pulumi CLI (README).
import { inFaithfulMode } from "./installed.ts";

await inFaithfulMode(() => import("./examples.test.ts"));
