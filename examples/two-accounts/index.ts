// One program, several accounts: `audience:accounts` maps a name to {apiKey, baseUrl} (set it with
// `pulumi config set --path --secret 'audience:accounts.north.apiKey' ...`), and each resource names its account.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();
const brands = config.getObject<string[]>("brands") ?? ["north", "south"];

export const csvUrls: Record<string, pulumi.Output<string | null | undefined>> = {};

for (const account of brands) {
  const leads = audience.getCohortOutput({ name: "Leads", account });
  const scope = new audience.Scope(`${account}-leads`, {
    account,
    name: `Leads (${account})`,
    population: { cohortIds: [leads.id] },
    payload: { cohortIds: [leads.id] },
    preview: true,
  });
  const csv = new audience.Target(`${account}-leads-csv`, {
    account,
    name: `Leads (${account}) CSV`,
    scopeId: scope.id,
    representation: { mode: "identified" },
    options: { type: "hosted_csv" },
  });
  csvUrls[account] = csv.outputUrl;
}
