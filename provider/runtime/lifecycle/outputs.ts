// What a step records of the service's answer: every response member in camelCase, secrets as declared, controls.
import { fromWire } from "pulumi-audience/sdk/contract";
import { controlsOf, type Parts } from "./parts.ts";
import { isObject, keepSecrets, memberNames, type Props } from "./shape.ts";

/** Outputs recorded for an answer: every response member in camelCase, secrets as declared, plus controls. */
export function outputsOf(parts: Parts, response: Props, known: Props): Props {
  // Only the members the contract declares: they are the class's typed outputs (the id is the resource's own).
  const declared = memberNames(parts.providerFamily.family.response);
  const wire = Object.fromEntries(Object.entries(response).filter(([key]) => key !== "id" && declared.includes(key)));
  const camel = fromWire(parts.providerFamily.family.response, wire);
  const members = isObject(camel) ? (keepSecrets(camel, known) as Props) : {};
  const extras = parts.providerFamily.extraOutputs?.(parts.extras, response) ?? {};
  return { ...members, ...parts.extras, ...extras, ...controlsOf(parts) };
}

/**
 * The member that records a resource archived outside the program. Read puts it in the inputs, so refresh shows
 * it as drift and the next plan as a change back (`archivedAt: "..." -> (none)`): update unarchives.
 */
export const ARCHIVED_KEY = "archivedAt";

/** When the resource was archived, from recorded outputs or a response; undefined while it is active. */
export function archivedAt(props: Props): string | undefined {
  const at = props[ARCHIVED_KEY] ?? props.archived_at;
  return typeof at === "string" ? at : undefined;
}
