// `audience stack`: declared with its code in provider/cli/stack.ts, loaded when it runs.
import { lazyCommand } from "./lazy.ts";

export const define = lazyCommand("stack", "the stack's outputs and state, as `pulumi stack` shows, exports and imports them",
  async () => (await import("../stack.ts")).register);
