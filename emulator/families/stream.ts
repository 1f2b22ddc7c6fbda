// Streams: addressed by id or by name. Their figures are derived from the datasets that feed them: each
// dataset's build records what it gave (families/dataset.ts); a stream answers the datasets configured to feed
// it now, so one that stops feeding it leaves its list and its totals at once.
import { notFound } from "../errors.ts";
import type { EmulatorFamily } from "../family.ts";
import { ok, param } from "../openapi.ts";
import { streamAnalysis } from "../outputs/analysis.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import type { Doc } from "../state.ts";

export const stream: EmulatorFamily = {
  collection: "streams",
  findByKey: (state, accountId, key) => state.resources(accountId, "streams").find((r) => r.doc.name === key),
  present(ctx, _request, doc) {
    const owner = ctx.state.resource("streams", String(doc.id));
    if (!owner) return doc;
    const recorded = (doc.event_contribution_by_dataset ?? []) as Doc[];
    const feeding = [...ctx.state.eachResource(owner.account_id, "datasets")]
      .filter((d) => d.doc.archived_at == null && Object.hasOwn((d.doc.output_to_streams ?? {}) as Doc, String(doc.name)));
    // A configured dataset that gave nothing (not built yet, in preview, no rows) is listed with 0 events.
    const contributions = feeding.map((d) => recorded.find((c) => c.dataset_id === d.doc.id) ?? { dataset_id: d.doc.id, event_count: 0 });
    const days = (key: "oldest_date" | "newest_date") => contributions.map((c) => c[key]).filter((v): v is string => typeof v === "string").sort();
    const oldest = days("oldest_date")[0];
    const newest = days("newest_date").at(-1);
    const answer: Doc = {
      ...doc,
      event_count: contributions.reduce((n, c) => n + Number(c.event_count), 0),
      event_contribution_by_dataset: contributions,
    };
    delete answer.oldest_date;
    delete answer.newest_date;
    return oldest !== undefined ? { ...answer, oldest_date: oldest, newest_date: newest } : answer;
  },  routes(app, ctx) {
    app.get<{ Params: { id: string } }>("/streams/:id/analysis", (request, reply) => {
      const accountId = ctx.account(request).id;
      // A stream is named by its id or its name.
      const stream = ctx.state.resources(accountId, "streams").find((s) => s.doc.id === request.params.id || s.doc.name === request.params.id);
      if (!stream) throw notFound(`No stream with id or name ${request.params.id} exists`);
      return reply.send({ stream_id: stream.doc.id, ...streamAnalysis(ctx.worldOf(accountId), String(stream.doc.name), resourcesOf(ctx.resources, accountId)) });
    });
  },
  openApi: () => ({
    paths: { "/streams/{id}/analysis": { get: { summary: "A stream's events (by id or name)", parameters: [param()], responses: ok() } } },
  }),
};
