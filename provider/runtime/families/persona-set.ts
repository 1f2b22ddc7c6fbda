// Persona sets: persona names are set through the personas endpoint, one PATCH per renamed persona, once the
// set has built and its personas exist. The program names them by persona id (`personaNames`).
import { MERGE_PATCH } from "pulumi-audience/sdk/client";
import { isObject } from "pulumi-audience/sdk/contract";
import { z } from "zod";
import type { FamilyExtras, Props } from "./family.ts";

function personas(response: Props): { id: string; name: string }[] {
  const list = Array.isArray(response.personas) ? response.personas : [];
  return list.filter(isObject).map((p) => ({ id: String(p.id), name: String(p.name ?? "") }));
}

export const personaSets: FamilyExtras = {
  extraInputs: ["personaNames"],
  extraInputSchema: z.object({
    personaNames: z.record(z.string(), z.string()).optional()
      .describe("Persona id -> name, applied through the personas endpoint once the set has built (see `personas`)."),
  }),
  async afterWrite({ client }, id, extras, response) {
    const wanted = isObject(extras.personaNames) ? extras.personaNames : {};
    let current = response;
    if (Object.keys(wanted).length > 0 && personas(current).length === 0) {
      current = await client.get("persona_sets", id);
    }
    const existing = personas(current);
    const unknown = Object.keys(wanted).filter((pid) => !existing.some((p) => p.id === pid));
    if (unknown.length > 0) {
      const known = existing.map((p) => `${p.id} (${p.name})`).join(", ") || "none yet (set waitFor: \"ready\" so names apply after the build)";
      throw new Error(`personaNames names personas ${unknown.join(", ")} that persona set ${id} does not have; its personas: ${known}`);
    }
    const renames = existing.filter((p) => typeof wanted[p.id] === "string" && wanted[p.id] !== p.name);
    for (const persona of renames) {
      const path = `/persona_sets/${encodeURIComponent(id)}/personas/${encodeURIComponent(persona.id)}`;
      await client.request({ method: "PATCH", path, body: { name: wanted[persona.id] }, contentType: MERGE_PATCH });
    }
    return renames.length > 0 ? await client.get("persona_sets", id) : current;
  },
  extraOutputs(extras, response) {
    // Record the names the service holds, so a rename made elsewhere shows as drift.
    const wanted = isObject(extras.personaNames) ? extras.personaNames : undefined;
    if (!wanted) return {};
    const names = Object.fromEntries(personas(response).filter((p) => p.id in wanted).map((p) => [p.id, p.name]));
    return { personaNames: names };
  },
};
