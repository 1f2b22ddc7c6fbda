// Connections: whether one can also be read from is the service's to say, from its type.
import type { Doc } from "../state.ts";
import type { EmulatorFamily } from "./family.ts";

/** Connections that can only receive deliveries; every other kind can also be read from. */
const DESTINATION_ONLY = new Set(["hosted_csv", "lookup_api"]);

export const connection: EmulatorFamily = {
  onCreate: (_state, _accountId, doc) => ({
    directionality: DESTINATION_ONLY.has(String((doc.options as Doc | undefined)?.type)) ? "destination_only" : "bidirectional",
    managed: false,
  }),
};
