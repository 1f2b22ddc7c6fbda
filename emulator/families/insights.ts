// POST /insights/query: one aggregate query over the account's uploaded dataset rows, within a daily
// allowance; groups smaller than the aggregation threshold are never returned. The emulator reads a small
// SQL subset: SELECT cols, COUNT(*) [AS n] FROM "<dataset name>" [WHERE col = 'v' [AND ...]] GROUP BY cols.
import type { FastifyInstance } from "fastify";
import { insightsQuery, insightsQueryResponse, validate } from "pulumi-audience/sdk/contract";
import type { EmulatorContext } from "../context.ts";
import { ApiError, fieldError, notFound, validationFailed } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { readDirectory } from "../ingest.ts";
import { errors, input, json, ok, output, ref } from "../openapi.ts";
import type { Doc } from "../state.ts";

export const DEFAULT_QUERIES_PER_DAY = 50;
export const AGGREGATION_THRESHOLD = 10;
/** The other limits usage reports beside the daily queries (the spec names them, not their values). */
export const DEFAULT_SLOT_HOURS_PER_DAY = 10;
export const DEFAULT_REFUSED_QUERIES_PER_30_DAYS = 100;

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** The Insights figures usage reports: each limit's use so far and its `max_count` (an account's quota overrides it). */
export function insightsUsage(quotas: Record<string, number>, usage: Record<string, number>, at = Date.now()): Record<string, { count: number; max_count: number }> {
  let refused = 0;
  for (let d = 0; d < 30; d++) refused += usage[`insights.refused_queries.${dayOf(at - d * DAY_MS)}`] ?? 0;
  return {
    queries_per_day: { count: usage[`insights.queries.${dayOf(at)}`] ?? 0, max_count: quotas["insights.queries_per_day"] ?? DEFAULT_QUERIES_PER_DAY },
    // Queries over uploaded rows take no measurable slot time in the emulator.
    slot_hours_per_day: { count: 0, max_count: quotas["insights.slot_hours_per_day"] ?? DEFAULT_SLOT_HOURS_PER_DAY },
    refused_queries_per_30_days: { count: refused, max_count: quotas["insights.refused_queries_per_30_days"] ?? DEFAULT_REFUSED_QUERIES_PER_30_DAYS },
  };
}

const GRAMMAR = `SELECT col[, col...], COUNT(*) [AS name] FROM "<dataset name>" [WHERE col = 'value' [AND ...]] GROUP BY col[, col...]`;
const QUERY = /^\s*select\s+(.+?)\s+from\s+"([^"]+)"(?:\s+where\s+(.+?))?(?:\s+group\s+by\s+(.+?))?\s*;?\s*$/is;
const COUNT = /^count\(\*\)(?:\s+as\s+([a-z_][a-z0-9_]*))?$/i;
const IDENT = /^[a-z_][a-z0-9_]*$/i;

function parseQuery(text: string) {
  const m = QUERY.exec(text);
  if (!m) return undefined;
  const select = (m[1] as string).split(",").map((s) => s.trim());
  const countAt = select.findIndex((s) => COUNT.test(s));
  if (countAt < 0) return undefined;
  const countName = COUNT.exec(select[countAt] as string)?.[1] ?? "count";
  const columns = select.filter((_s, i) => i !== countAt);
  const groupBy = m[4] ? m[4].split(",").map((s) => s.trim()) : [];
  if (!columns.every((c) => IDENT.test(c)) || columns.join() !== groupBy.join()) return undefined;
  const where: [string, string][] = [];
  for (const clause of m[3] ? m[3].split(/\s+and\s+/i) : []) {
    const w = /^([a-z_][a-z0-9_]*)\s*=\s*'([^']*)'$/i.exec(clause.trim());
    if (!w) return undefined;
    where.push([w[1] as string, w[2] as string]);
  }
  return { columns, countName, dataset: m[2] as string, where };
}

function routes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state } = ctx;
  app.post("/insights/query", (request, reply) => {
    const account = ctx.account(request);
    if (state.resources(account.id, "insights").length === 0) throw notFound("The account has no insights plan: create it with POST /insights");
    const parsed = validate(insightsQuery, request.body);
    if (!parsed.ok) throw validationFailed(parsed.errors);
    const day = dayOf(Date.now());
    const usage = state.usage(account.id);
    const allowance = account.quotas["insights.queries_per_day"] ?? DEFAULT_QUERIES_PER_DAY;
    if ((usage[`insights.queries.${day}`] ?? 0) >= allowance) {
      state.store.transaction(() => {
        state.addUsage(account.id, "insights.refused_queries", 1);
        state.addUsage(account.id, `insights.refused_queries.${day}`, 1);
      });
      throw new ApiError("QUOTA_EXCEEDED", `The daily Insights allowance of ${allowance} queries is used up; it renews at midnight UTC`);
    }
    const query = parseQuery(parsed.value.query);
    if (!query) throw validationFailed([fieldError("query", `is not a query the service can run; write ${GRAMMAR}`, "invalid_query")]);
    const dataset = state.resources(account.id, "datasets").find((d) => d.doc.name === query.dataset);
    if (!dataset) throw validationFailed([fieldError("query", `reads "${query.dataset}", which is not a dataset of this account`, "invalid_query")]);
    const options = (dataset.doc.options ?? {}) as Doc;
    const rows = options.type === "hosted_csv" ? readDirectory(state, account.id, String(options.upload_directory)).rows : [];
    const groups = new Map<string, { values: string[]; n: number }>();
    for (const row of rows) {
      if (!query.where.every(([c, v]) => row[c] === v)) continue;
      const values = query.columns.map((c) => row[c] ?? "");
      const key = JSON.stringify(values);
      const group = groups.get(key) ?? { values, n: 0 };
      group.n++;
      groups.set(key, group);
    }
    const threshold = account.quotas["insights.aggregation_threshold"] ?? AGGREGATION_THRESHOLD;
    const result = [...groups.values()].filter((g) => g.n >= threshold)
      .map((g) => ({ ...Object.fromEntries(query.columns.map((c, i) => [c, g.values[i]])), [query.countName]: g.n }));
    state.store.transaction(() => {
      state.addUsage(account.id, `insights.queries.${day}`, 1);
      state.addUsage(account.id, "insights.queries", 1);
    });
    return reply.send({ rows: result, aggregation_threshold: threshold });
  });
}

export const insights: EmulatorFamily = {
  collection: "insights",
  routes,
  openApi: () => ({
    schemas: { InsightsQuery: input(insightsQuery), InsightsQueryResponse: output(insightsQueryResponse) },
    paths: {
      "/insights/query": { post: { summary: "One aggregate query (429 QUOTA_EXCEEDED beyond the daily allowance)", requestBody: { required: true, ...json(ref("InsightsQuery")) }, responses: { ...ok(ref("InsightsQueryResponse")), 429: errors["400"] } } },
    },
  }),
};
