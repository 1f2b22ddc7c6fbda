// Datasets: the service makes a stream for each entry of `outputToStreams` and a trait for each entry of
// `outputToTraits` (spec: streams' properties are "set by dataset output_to_streams"); they belong to the dataset.
import type { FamilyExtras, Props } from "./family.ts";

/** The member names of a map-valued output (`{purchases: {...}}` -> `["purchases"]`). */
function keysOf(value: unknown): string[] {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
}

export const datasets: FamilyExtras = {
  derives: [
    { collection: "streams", names: (outputs: Props) => keysOf(outputs.outputToStreams) },
    { collection: "traits", names: (outputs: Props) => keysOf(outputs.outputToTraits) },
  ],
};
