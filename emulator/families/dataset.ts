// Datasets: a build counts and samples the rows and, out of preview, feeds the streams and traits it maps to;
// its ingress logs say what it read.
import type { EmulatorFamily } from "../family.ts";
import { detectedColumns, ingressLogPaths, ingressLogRoutes, sourceTable, text, writeLog, type Table } from "../ingest.ts";
import { now, type Doc, type ServiceState, type StoredResource } from "../state.ts";

function streamType(format: unknown): string {
  const f = String(format ?? "");
  if (/date|yyyy/.test(f)) return "date";
  if (/currency|double|decimal/.test(f)) return "double";
  if (/int|long|count/.test(f)) return "long";
  if (/bool/.test(f)) return "boolean";
  return "string";
}

/** Dates before this are implausible: excluded from a stream (the spec's parsing rule). */
const OLDEST_PLAUSIBLE = "1900-01-01";
/** A cell that reads as a date: ISO 8601, a day with or without a time. */
const DATED = /^\d{4}-\d{2}-\d{2}/;

/** What one dataset's rows give a stream: its events and, when they are dated, the first and last day. */
function contribution(table: Table, datasetId: unknown, mapping: { data_map?: Record<string, { column_name?: string }> }): Doc {
  const dateColumn = mapping.data_map?.datetime?.column_name;
  let events = 0;
  let oldest: string | undefined;
  let newest: string | undefined;
  for (const row of table.rows) {
    const cell = text(row, dateColumn);
    // A value unreadable as a date is treated as absent: the event counts, undated.
    const day = cell !== undefined && DATED.test(cell) && !Number.isNaN(Date.parse(cell)) ? new Date(Date.parse(cell)).toISOString().slice(0, 10) : undefined;
    if (day !== undefined && day < OLDEST_PLAUSIBLE) continue;
    events++;
    if (day === undefined) continue;
    if (oldest === undefined || day < oldest) oldest = day;
    if (newest === undefined || day > newest) newest = day;
  }
  return { dataset_id: datasetId, event_count: events, ...(oldest !== undefined ? { oldest_date: oldest, newest_date: newest } : {}) };
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
  const streams = (resource.doc.output_to_streams ?? {}) as Record<string, { data_map?: Record<string, { format?: string; column_name?: string }> }>;
  for (const [name, mapping] of Object.entries(streams)) {
    const properties = Object.fromEntries(Object.entries(mapping.data_map ?? {}).map(([p, c]) => [p, { type: p === "datetime" ? "date" : streamType(c.format) }]));
    // This build's figures replace the dataset's earlier ones; the stream answers them (families/stream.ts).
    const figures = contribution(table, resource.doc.id, mapping);
    const existing = state.resources(resource.account_id, "streams").find((s) => s.doc.name === name);
    if (existing) {
      const others = ((existing.doc.event_contribution_by_dataset ?? []) as Doc[]).filter((c) => c.dataset_id !== resource.doc.id);
      // A property the stream declares keeps its declaration: a data map's column adds only what the stream lacks.
      existing.doc.properties = { ...properties, ...(existing.doc.properties as Doc | undefined) };
      existing.doc.event_contribution_by_dataset = [...others, figures];
      existing.doc.updated_at = now();
      state.save(existing);
    } else {
      state.insert(resource.account_id, "streams", { name, properties, status: "ready", event_contribution_by_dataset: [figures] });
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
  collection: "datasets",
  build: (ctx, resource) => buildDataset(ctx.state, resource),
  routes: (app, ctx) => ingressLogRoutes(app, ctx, "datasets"),
  openApi: () => ({ paths: ingressLogPaths("datasets", "A dataset's row-processing logs (paged)") }),
};
