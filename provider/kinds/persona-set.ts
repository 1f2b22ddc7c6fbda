// Persona sets: persona names are set through the personas endpoint, one PATCH per renamed persona, once the
// set has built and its personas exist. The program names them by persona id (`personaNames`).
import { z } from "zod";
import { isObject } from "../lifecycle/shape.ts";
import type { Kind } from "./kind.ts";

function personas(response: Record<string, unknown>): { id: string; name: string }[] {
  const list = Array.isArray(response.personas) ? response.personas : [];
  return list.filter(isObject).map((p) => ({ id: String(p.id), name: String(p.name ?? "") }));
}

export const personaSetExtras: Partial<Kind> = {
  extraInputs: ["personaNames"],
  extraInputSchema: z.object({ personaNames: z.record(z.string(), z.string()).optional() }),
  async afterWrite(calls, id, extras, response) {
    const wanted = isObject(extras.personaNames) ? extras.personaNames : {};
    let current = response;
    if (Object.keys(wanted).length > 0 && personas(current).length === 0) {
      current = (await calls.request("GET", `/persona_sets/${encodeURIComponent(id)}`)) as Record<string, unknown>;
    }
    const existing = personas(current);
    const unknown = Object.keys(wanted).filter((pid) => !existing.some((p) => p.id === pid));
    if (unknown.length > 0) {
      const known = existing.map((p) => `${p.id} (${p.name})`).join(", ") || "none yet (set waitFor: \"ready\" so names apply after the build)";
      throw new Error(`personaNames names personas ${unknown.join(", ")} that persona set ${id} does not have; its personas: ${known}`);
    }
    const renames = existing.filter((p) => typeof wanted[p.id] === "string" && wanted[p.id] !== p.name);
    for (const persona of renames) {
      await calls.request("PATCH", `/persona_sets/${encodeURIComponent(id)}/personas/${encodeURIComponent(persona.id)}`, { name: wanted[persona.id] });
    }
    return renames.length > 0 ? ((await calls.request("GET", `/persona_sets/${encodeURIComponent(id)}`)) as Record<string, unknown>) : current;
  },
  extraOutputs(extras, response) {
    // Record the names the service holds, so a rename made elsewhere shows as drift.
    const wanted = isObject(extras.personaNames) ? extras.personaNames : undefined;
    if (!wanted) return {};
    const names = Object.fromEntries(personas(response).filter((p) => p.id in wanted).map((p) => [p.id, p.name]));
    return { personaNames: names };
  },
};
