// Targets: answered with their `output_url` (a signed download of a hosted CSV, the lookup endpoint of a
// lookup_api target); a build bills what it delivers; the owner is mailed when it finishes.
import type { DeliveryCount } from "../outputs/csv.ts";
import { targetTable } from "../outputs/target.ts";
import { deliveryUsage } from "../outputs/usage.ts";
import { resourcesOf } from "../outputs/worlds.ts";
import { signUrl } from "../signing.ts";
import type { Doc } from "../state.ts";
import type { EmulatorFamily } from "./family.ts";

const OUTPUT_URL_TTL_MS = 60 * 60 * 1000;

const optionsType = (doc: Doc) => (doc.options as { type?: unknown } | undefined)?.type;

export const target: EmulatorFamily = {
  mailOnReady: true,
  present(ctx, request, doc) {
    const id = String(doc.id);
    if (optionsType(doc) === "hosted_csv") {
      return { ...doc, output_url: ctx.baseUrl(request) + signUrl(`/v1/targets/${id}/download.csv`, new Date(Date.now() + OUTPUT_URL_TTL_MS)) };
    }
    if (optionsType(doc) === "lookup_api") return { ...doc, output_url: `${ctx.baseUrl(request)}/v1/targets/${id}/lookup` };
    return doc;
  },
  build(ctx, resource) {
    const { account_id: accountId, doc } = resource;
    const scope = ctx.state.resource("scopes", String(doc.scope_id));
    // A lookup target answers calls instead of delivering batches; a preview pipeline is not billed.
    if (optionsType(doc) === "lookup_api") return undefined;
    if (scope && scope.doc.preview !== true) ctx.usage.add(accountId, "batch_deployments", 1);
    if (!scope || scope.account_id !== accountId) throw new Error(`The target's scope ${String(doc.scope_id)} does not exist`);
    const delivered = targetTable(ctx.worldOf(accountId), doc, scope.doc, resourcesOf(ctx.resources, accountId));
    const count: DeliveryCount = { rows: 0, located: 0 };
    const distance = delivered.columns.findIndex((c) => c.startsWith("svc_location_distance"));
    for (const row of delivered.rows()) {
      count.rows++;
      if (distance >= 0 && typeof row[distance] === "number") count.located++;
    }
    const location = (scope.doc.payload as Doc | undefined)?.location as Doc | undefined;
    const nearest = location !== undefined && (location.selection ?? "nearest") === "nearest";
    for (const [metric, n] of deliveryUsage(delivered.columns, count, scope.doc.preview === true, nearest)) ctx.usage.add(accountId, metric, n);
    return undefined;
  },
};
