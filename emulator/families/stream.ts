// Streams: addressed by id or by name.
import type { EmulatorFamily } from "./family.ts";

export const stream: EmulatorFamily = {
  findByKey: (state, accountId, key) => state.resources(accountId, "streams").find((r) => r.doc.name === key),
};
