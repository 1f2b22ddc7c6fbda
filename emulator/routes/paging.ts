// Listing parameters and answers: the repeated `ids` filter every list takes, limit / offset paging with
// X-Total-Count and an RFC 8288 Link header for the few listings that page, and long lists streamed.
import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { EmulatorContext } from "../context.ts";
import { fieldError, queryInvalid } from "../errors.ts";
import { ID_PATTERN } from "../ids.ts";
import type { Doc, StoredResource } from "../state.ts";

export const MAX_IDS = 100;

/** `?ids=a&ids=b` or `?ids=a,b` (empty entries skipped): one to 100 uuids. */
export function idsFilter(query: unknown): Set<string> | undefined {
  const ids = namedIds(query);
  if (ids === undefined) return undefined;
  assertIds(ids, ids);
  return new Set(ids);
}

/** The ids `?ids=` names, in order, from one to 100 of them; not yet tested against the id pattern. */
function namedIds(query: unknown): string[] | undefined {
  const raw = (query as { ids?: string | string[] } | undefined)?.ids;
  if (raw === undefined) return undefined;
  const ids: string[] = [];
  for (const given of Array.isArray(raw) ? raw : [raw]) {
    for (const s of given.includes(",") ? given.split(",") : [given]) if (s !== "") ids.push(s);
  }
  // `ids=` or `ids=,,` (an empty variable, say) would answer an empty list as if nothing matched.
  if (ids.length === 0) throw queryInvalid([fieldError("ids", "names no id: give one or more uuids, or leave ids out to list all", "too_small")]);
  if (ids.length > MAX_IDS) {
    throw queryInvalid([fieldError("ids", `names ${ids.length} ids; at most ${MAX_IDS} are allowed per request`, "too_big")]);
  }
  return ids;
}

/** Refuses the ids named (`named`) when one of `untested` among them is not a uuid, naming the first that is not. */
export function assertIds(named: readonly string[], untested: readonly string[]): void {
  if (untested.every((s) => ID_PATTERN.test(s))) return;
  const bad = named.findIndex((s) => !ID_PATTERN.test(s));
  throw queryInvalid([fieldError(`ids[${bad}]`, "must be a uuid", "invalid_format")]);
}

/** What a list takes in its query: `ids`, `archived`, and `limit` / `offset` where it pages (refusePaging). */
const LIST_PARAMS: ReadonlySet<string> = new Set(["ids", "archived", "limit", "offset"]);

/**
 * A list's filters; a parameter it does not take, or an `archived` other than true or false, is refused. The ids
 * are not yet tested against the id pattern: the list tests those its lookup cannot vouch for (assertIds).
 */
export function listFilters(query: unknown): { ids: string[] | undefined; archived: boolean } {
  const given = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !LIST_PARAMS.has(name));
  if (unknown.length > 0) {
    throw queryInvalid(unknown.map((name) => fieldError(name, "is not a parameter of this list: it takes ids and archived", "unrecognized_keys")));
  }
  if (given.archived !== undefined && given.archived !== "true" && given.archived !== "false") {
    throw queryInvalid([fieldError("archived", "must be true or false", "invalid_type")]);
  }
  return { ids: namedIds(given), archived: given.archived === "true" };
}

/** The resources the request's `ids` filter keeps (all of them without one), as answered to the request. */
export function presentFiltered(ctx: EmulatorContext, request: FastifyRequest, resources: readonly StoredResource[]): Readonly<Doc>[] {
  const wanted = idsFilter(request.query);
  return resources.filter((r) => !wanted || wanted.has(String(r.doc.id))).map((r) => ctx.present(request, r));
}

/**
 * Refuses `limit` and `offset` on an answer that is not a paged listing (a route without `config.paged`), rather
 * than ignoring them: a client must never take a whole list for one page of it.
 */
export function refusePaging(query: unknown, pagedListings: readonly string[]): void {
  const given = ["limit", "offset"].filter((name) => (query as Record<string, unknown> | undefined)?.[name] !== undefined);
  if (given.length > 0) {
    throw queryInvalid(given.map((name) => fieldError(name, `is not taken here: this answer is not paged (only ${pagedListings.join(", ")} page)`, "unrecognized_keys")));
  }
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

function integer(query: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || n > max) {
    throw queryInvalid([fieldError(name, `must be an integer from 0 to ${max}`, "invalid_type")]);
  }
  return n;
}

/** Answers one page of `items` with the paging headers. */
export function sendPage<T>(request: FastifyRequest, reply: FastifyReply, items: readonly T[]): FastifyReply {
  const query = request.query as Record<string, unknown>;
  const limit = integer(query, "limit", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const offset = integer(query, "offset", 0, Number.MAX_SAFE_INTEGER);
  const url = new URL(request.originalUrl, `${request.protocol}://${request.host}`);
  const link = (rel: string, at: number) => {
    url.searchParams.set("limit", String(limit));
    url.searchParams.set("offset", String(at));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (limit > 0 && offset + limit < items.length) links.push(link("next", offset + limit));
  if (offset > 0) links.push(link("prev", Math.max(0, offset - limit)));
  links.push(link("first", 0));
  if (limit > 0) links.push(link("last", Math.max(0, Math.floor((items.length - 1) / limit) * limit)));
  return reply.header("x-total-count", String(items.length)).header("link", links.join(", ")).send(items.slice(offset, offset + limit));
}

/** Lists longer than this are streamed: the answer is written as it is made, never held whole in memory. */
const STREAM_OVER = 1000;

/** Whether `sendList` streams a list of `count` items rather than answering it at once. */
export function streamed(count: number): boolean {
  return count > STREAM_OVER;
}
const CHUNK = 64 * 1024;

/** Answers `items` as a JSON array, each written as JSON by `json` only as it is sent. */
export function sendList<T>(reply: FastifyReply, items: readonly T[], json: (item: T) => string): FastifyReply {
  reply.type("application/json; charset=utf-8");
  if (!streamed(items.length)) return reply.send(`[${items.map(json).join(",")}]`);
  function* chunks(): Generator<string> {
    let chunk = "[";
    for (const [i, item] of items.entries()) {
      chunk += (i === 0 ? "" : ",") + json(item);
      if (chunk.length >= CHUNK) {
        yield chunk;
        chunk = "";
      }
    }
    yield `${chunk}]`;
  }
  return reply.send(Readable.from(chunks()));
}
