// Atlases: a build reads the source and replaces the atlas's locations, logging the rows it could not place;
// the locations of live atlases are listed in pages, all of an account's or one atlas's.
import type { FastifyReply, FastifyRequest } from "fastify";
import { locationResponse } from "pulumi-audience/sdk/contract";
import { notFound } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { detectedColumns, ingressLogPaths, ingressLogRoutes, sourceTable, text, writeLog } from "../ingest.ts";
import { parseClientJson } from "../json.ts";
import { output, paged, paging, param, ref } from "../openapi.ts";
import { presentFiltered, sendPage } from "../routes/paging.ts";
import type { Doc, ServiceState, StoredResource } from "../state.ts";

function scalar(value: string): string | number | boolean {
  if (/^-?\d*\.?\d+(e-?\d+)?$/i.test(value)) return Number(value);
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  return value;
}

/** The most positions one location's outline may have. */
const MAX_OUTLINE_POSITIONS = 10_000;

const onEarth = (lon: number, lat: number) => Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;

/** The positions of a GeoJSON geometry (longitude first), or undefined when one is not a pair of numbers. */
function positions(coordinates: unknown): [number, number][] | undefined {
  if (!Array.isArray(coordinates)) return undefined;
  if (coordinates.length >= 2 && coordinates.every((c) => typeof c === "number")) return [[coordinates[0] as number, coordinates[1] as number]];
  const out: [number, number][] = [];
  for (const inner of coordinates) {
    const found = positions(inner);
    if (!found) return undefined;
    out.push(...found);
  }
  return out;
}

/** Twice the signed area of a ring, in square degrees (0 for a ring that encloses nothing). */
function ringArea(ring: [number, number][]): number {
  let area = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i] as [number, number];
    const [x2, y2] = ring[i + 1] as [number, number];
    area += x1 * y2 - x2 * y1;
  }
  return area;
}

/**
 * Why a geometry places no location (the spec's reasons): unreadable (not GeoJSON, or a position off the earth:
 * coordinates are longitude first), encloses nowhere (a polygon without area), or an outline too large.
 */
function geometryProblem(geometry: Doc | undefined): string | undefined {
  if (typeof geometry?.type !== "string") return "geometry_unreadable";
  const all = positions(geometry.coordinates);
  if (!all || all.length === 0 || !all.every(([lon, lat]) => onEarth(lon, lat))) return "geometry_unreadable";
  if (all.length > MAX_OUTLINE_POSITIONS) return "outline_too_large";
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.type === "MultiPolygon" ? geometry.coordinates as unknown[] : [];
  for (const polygon of polygons as unknown[][]) {
    const outer = positions(polygon[0]) ?? [];
    if (outer.length < 4 || ringArea(outer) === 0) return "encloses_nowhere";
  }
  return undefined;
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
      if (!onEarth(lon, lat)) reason = "invalid_coordinates";
      else Object.assign(location, { latitude: lat, longitude: lon });
    } else if (map.geometry !== undefined) {
      const raw = text(row, map.geometry) ?? "";
      const pair = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(raw);
      if (pair) {
        // A bare coordinate pair is split and mapped as latitude and longitude (in that order).
        const [lat, lon] = [Number(pair[1]), Number(pair[2])];
        if (!onEarth(lon, lat)) reason = "invalid_coordinates";
        else Object.assign(location, { latitude: lat, longitude: lon });
      } else {
        let geometry: Doc | undefined;
        try {
          geometry = parseClientJson(raw) as Doc;
        } catch {
          geometry = undefined;
        }
        reason = geometryProblem(geometry);
        if (!reason) location.geometry = geometry;
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

type Params = { id: string; log_id: string };

export const atlas: EmulatorFamily = {
  collection: "atlases",
  build: (ctx, resource) => buildAtlas(ctx.state, resource),
  routes(app, ctx) {
    const { state } = ctx;
    const locations = (accountId: string, atlasId?: string) => state.resources(accountId, "locations")
      .filter((r) => atlasId === undefined || r.doc.atlas_id === atlasId)
      .filter((r) => {
        const atlas = state.resource("atlases", String(r.doc.atlas_id));
        return atlas !== undefined && atlas.doc.archived_at == null;
      });
    const page = (request: FastifyRequest, reply: FastifyReply, list: StoredResource[]) => sendPage(request, reply, presentFiltered(ctx, request, list));
    const paged = { config: { paged: true } };
    app.get("/locations", paged, (request, reply) => page(request, reply, locations(ctx.account(request).id)));
    app.get<{ Params: Params }>("/atlases/:id/locations", paged, (request, reply) => {
      const atlas = ctx.owned(request, "atlases", request.params.id);
      return page(request, reply, locations(atlas.account_id, String(atlas.doc.id)));
    });
    ingressLogRoutes(app, ctx, "atlases");
    app.get<{ Params: Params }>("/atlases/:id/logs/ingress/:log_id/unplaced_rows", paged, (request, reply) => {
      const owner = ctx.owned(request, "atlases", request.params.id);
      const found = state.resources(owner.account_id, "ingress_logs").find((l) => l.doc.id === request.params.log_id && l.doc.source_id === request.params.id);
      if (!found) throw notFound(`No ingress log ${request.params.log_id} exists for atlas ${request.params.id}`);
      return sendPage(request, reply, (found.doc.unplaced_rows ?? []) as unknown[]);
    });
  },
  openApi: () => ({
    schemas: { Location: output(locationResponse) },
    paths: {
      "/locations": { get: { summary: "List locations (paged)", parameters: paging, responses: paged(ref("Location")) } },
      "/atlases/{id}/locations": { get: { summary: "List an atlas's locations (paged)", parameters: [param(), ...paging], responses: paged(ref("Location")) } },
      ...ingressLogPaths("atlases", "An atlas's build logs (paged)"),
    },
  }),
};
