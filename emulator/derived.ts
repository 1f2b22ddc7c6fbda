// Members the service computes itself: at create (secrets, directionality) and as builds finish (an
// atlas's locations, a dataset's counts and the streams and traits it feeds, a persona set's personas).
import { randomUUID } from "node:crypto";
import { SECRET_PLACEHOLDER } from "pulumi-audience/sdk/contract";
import type { Builds } from "./builds.ts";
import { detectedColumns, readDirectory, type Table } from "./ingest.ts";
import { now, type Doc, type ServiceState, type StoredResource } from "./state.ts";
import { parseClientJson } from "./json.ts";

/** Connections that can only receive deliveries; every other kind can also be read from. */
const DESTINATION_ONLY = new Set(["hosted_csv", "lookup_api"]);

/** Read-only members a new resource starts with. */
export function membersOnCreate(state: ServiceState, accountId: string, collection: string, doc: Doc): Doc {
  switch (collection) {
    case "webhook_endpoints":
      // The signing secret derives from the endpoint's id (emulator/webhooks.ts); the API only shows it masked.
      return { secret: SECRET_PLACEHOLDER };
    case "connections": {
      const type = String((doc.options as Doc | undefined)?.type);
      return { directionality: DESTINATION_ONLY.has(type) ? "destination_only" : "bidirectional", managed: false };
    }
    case "persona_sets":
      return { personas: [], active: false };
    case "migrations":
      return { account_tree_relationship: relationship(state, String(doc.v1_account_id), String(doc.v2_account_id)), finished_at: null, rolled_back_at: null };
    default:
      return {};
  }
}

/** How two accounts of a migration are related: `v2_parent_of_v1`, `v1_parent_of_v2`, `siblings` or `unrelated`. */
export function relationship(state: ServiceState, v1: string, v2: string): string {
  const a = state.account(v1);
  const b = state.account(v2);
  if (!a || !b) return "unrelated";
  if (a.parent_id === b.id) return "v2_parent_of_v1";
  if (b.parent_id === a.id) return "v1_parent_of_v2";
  if (a.parent_id !== null && a.parent_id === b.parent_id) return "siblings";
  return "unrelated";
}

function text(row: Record<string, string>, column: unknown): string | undefined {
  if (typeof column !== "string") return undefined;
  const value = row[column];
  return value === undefined || value === "" ? undefined : value;
}

function scalar(value: string): string | number | boolean {
  if (/^-?\d*\.?\d+(e-?\d+)?$/i.test(value)) return Number(value);
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return value;
}

function sourceTable(state: ServiceState, resource: StoredResource): Table | undefined {
  const options = resource.doc.options as Doc | undefined;
  if (options?.type !== "hosted_csv") return undefined;
  return readDirectory(state, resource.account_id, String(options.upload_directory), {
    ...(typeof options.delimiter === "string" ? { delimiter: options.delimiter } : {}),
    ...(typeof options.header_row === "boolean" ? { header_row: options.header_row } : {}),
  });
}

function writeLog(state: ServiceState, resource: StoredResource, fields: Doc): void {
  state.insert(resource.account_id, "ingress_logs", {
    source_type: resource.collection, source_id: resource.doc.id, name: `${resource.collection} ${String(resource.doc.id)} ingress`,
    status: "ready", ...fields,
  });
}

/** An atlas build reads its source and replaces its locations. */
function buildAtlas(state: ServiceState, resource: StoredResource): Doc {
  const table = sourceTable(state, resource);
  const atlasId = String(resource.doc.id);
  for (const old of state.allResources(resource.account_id).filter((r) => r.collection === "locations" && r.doc.atlas_id === atlasId)) {
    state.remove("locations", String(old.doc.id));
  }
  if (!table) return { counts: { source_rows: 0, located_rows: 0, unplaced_rows: 0 }, detected_columns: [] };
  const map = resource.doc.output_to_locations as Doc;
  const properties = (map.properties ?? {}) as Record<string, { column_name: string }>;
  const unplaced: Doc[] = [];
  let located = 0;
  table.rows.forEach((row, index) => {
    const location: Doc = {
      atlas_id: atlasId, name: text(row, map.name) ?? null, reference_key: text(row, map.reference_key) ?? null, status: "ready",
      properties: Object.fromEntries(Object.entries(properties).flatMap(([p, c]) => {
        const v = text(row, c.column_name);
        return v === undefined ? [] : [[p, scalar(v)]];
      })),
    };
    let reason: string | undefined;
    if (map.latitude !== undefined) {
      const lat = Number(text(row, map.latitude));
      const lon = Number(text(row, map.longitude));
      if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) reason = "invalid_coordinates";
      else Object.assign(location, { latitude: lat, longitude: lon });
    } else if (map.geometry !== undefined) {
      const raw = text(row, map.geometry) ?? "";
      const pair = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(raw);
      if (pair) {
        // A bare coordinate pair is split and mapped as latitude and longitude.
        Object.assign(location, { latitude: Number(pair[1]), longitude: Number(pair[2]) });
      } else {
        try {
          const geometry = parseClientJson(raw) as Doc;
          if (typeof geometry.type !== "string" || !Array.isArray(geometry.coordinates)) throw new Error("not GeoJSON");
          location.geometry = geometry;
        } catch {
          reason = "geometry_unreadable";
        }
      }
    } else if (map.house_number_and_street !== undefined || map.freeform_address !== undefined || map.city !== undefined) {
      // The emulator does not geocode addresses.
      reason = "address_not_geocoded";
    }
    if (reason) {
      unplaced.push({ row_number: index + 1, reason, values: row });
      return;
    }
    state.insert(resource.account_id, "locations", location);
    located++;
  });
  const counts = { source_rows: table.rows.length + table.malformed, located_rows: located, unplaced_rows: unplaced.length };
  writeLog(state, resource, {
    rows_read: counts.source_rows, malformed_rows: table.malformed, placed_rows: located,
    dropped: unplaced.reduce<Record<string, number>>((acc, u) => ({ ...acc, [String(u.reason)]: (acc[String(u.reason)] ?? 0) + 1 }), {}),
    unplaced_rows: unplaced,
  });
  return { counts, detected_columns: detectedColumns(table) };
}

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

function buildPersonaSet(resource: StoredResource): Doc {
  const existing = (resource.doc.personas ?? []) as Doc[];
  const n = typeof resource.doc.number_of_clusters === "number" ? resource.doc.number_of_clusters : 5;
  const personas = Array.from({ length: n }, (_v, i) => existing[i] ?? { id: randomUUID(), name: `Persona ${i + 1}`, individuals_count: null });
  return { personas, active: true };
}

/** Orphaned resources: nothing downstream uses them. */
function buildAudit(state: ServiceState, resource: StoredResource): Doc {
  const candidates = state.allResources(resource.account_id).filter((r) =>
    ["cohorts", "outcomes", "persona_sets", "recommenders", "scopes", "datasets", "connections"].includes(r.collection)
    && r.doc.archived_at == null && r.doc.managed !== true);
  const orphaned = candidates.filter((r) => state.downstreamOf(resource.account_id, String(r.doc.id)).length === 0)
    .map((r) => ({ resource_type: r.collection, resource_id: r.doc.id, name: r.doc.name ?? null }));
  const useCases = state.resources(resource.account_id, "use_cases").map((u) => ({ id: u.doc.id, name: u.doc.name, resources: [] }));
  return { changes: [], conflicts: [], orphaned_resources: orphaned, use_cases: useCases };
}

/** Registers the service's own build steps. */
export function registerBuildSteps(state: ServiceState, builds: Builds): void {
  builds.onReady((resource) => {
    switch (resource.collection) {
      case "atlases": return buildAtlas(state, resource);
      case "datasets": return buildDataset(state, resource);
      case "persona_sets": return buildPersonaSet(resource);
      case "audits": return buildAudit(state, resource);
      case "targets": {
        const scope = state.resource("scopes", String(resource.doc.scope_id));
        // A preview pipeline is not billed; a lookup target answers calls instead of delivering batches.
        const lookupOnly = (resource.doc.options as Doc | undefined)?.type === "lookup_api";
        if (scope && scope.doc.preview !== true && !lookupOnly) state.addUsage(resource.account_id, "batch_deployments", 1);
        return undefined;
      }
      default: return undefined;
    }
  });
}
