// `audience drift`: declared with its code in provider/cli/drift/, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("drift", "report where live accounts differ from the states of the programs that manage them",
  async () => (await import("../drift/index.ts")).register);
