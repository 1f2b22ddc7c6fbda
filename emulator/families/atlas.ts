// Atlases: a build reads the source and replaces the atlas's locations, logging the rows it could not place.
import { detectedColumns, sourceTable, text, writeLog } from "../ingest.ts";
import { parseClientJson } from "../json.ts";
import type { Doc, ServiceState, StoredResource } from "../state.ts";
import type { EmulatorFamily } from "./family.ts";

function scalar(value: string): string | number | boolean {
  if (/^-?\d*\.?\d+(e-?\d+)?$/i.test(value)) return Number(value);
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return value;
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

export const atlas: EmulatorFamily = {
  build: (ctx, resource) => buildAtlas(ctx.state, resource),
};
