// Datasets: a build counts and samples the rows and, out of preview, feeds the streams and traits it maps to.
import { detectedColumns, sourceTable, text, writeLog } from "../ingest.ts";
import { now, type Doc, type ServiceState, type StoredResource } from "../state.ts";
import type { EmulatorFamily } from "./family.ts";

function streamType(format: unknown): string {
  const f = String(format ?? "");
  if (/date|yyyy/.test(f)) return "date";
  if (/currency|double|decimal/.test(f)) return "double";
  if (/int|long|count/.test(f)) return "long";
  if (/bool/.test(f)) return "boolean";
  return "string";
}

/** A dataset build counts and samples its rows and feeds the streams and traits it maps to. */
function buildDataset(state: ServiceState, resource: StoredResource): Doc {
  const table = sourceTable(state, resource) ?? { columns: [], rows: [], malformed: 0 };
  const sets = Object.values((resource.doc.identity_sets ?? {}) as Record<string, Doc>);
  const identified = table.rows.filter((row) => sets.some((set) => Object.values(set).some((c) => (Array.isArray(c) ? c : [c]).some((col) => text(row, col) !== undefined)))).length;
  const computed: Doc = {
    row_count: table.rows.length, identified_count: identified, matched_count: identified,
    detected_columns: detectedColumns(table).map((c) => ({ ...c, identifier_recommendation: /email|phone|postcode|city|state|name|address|street/i.test(c.name) ? c.name.toLowerCase() : null })),
    sample_data: table.rows.slice(0, 5),
  };
  writeLog(state, resource, {
    total: table.rows.length + table.malformed, processable: table.rows.length, valid: table.rows.length,
    allowed: table.rows.length, recognized: identified, enrichable: identified,
  });
  if (resource.doc.preview === true) return computed;
  const streams = (resource.doc.output_to_streams ?? {}) as Record<string, { data_map?: Record<string, { format?: string }> }>;
  for (const [name, mapping] of Object.entries(streams)) {
    const properties = Object.fromEntries(Object.entries(mapping.data_map ?? {}).map(([p, c]) => [p, { type: p === "datetime" ? "date" : streamType(c.format) }]));
    const existing = state.resources(resource.account_id, "streams").find((s) => s.doc.name === name);
    if (existing) {
      existing.doc.properties = { ...(existing.doc.properties as Doc | undefined), ...properties };
      existing.doc.updated_at = now();
      state.save(existing);
    } else {
      state.insert(resource.account_id, "streams", { name, properties, status: "ready" });
    }
  }
  for (const name of Object.keys((resource.doc.output_to_traits ?? {}) as Doc)) {
    if (!state.resources(resource.account_id, "traits").some((t) => t.doc.name === name)) {
      state.insert(resource.account_id, "traits", { name, status: "ready" });
    }
  }
  return computed;
}

export const dataset: EmulatorFamily = {
  build: (ctx, resource) => buildDataset(ctx.state, resource),
};
