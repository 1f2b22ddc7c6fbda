// The adaptive-discounting pipeline: people in the Leads cohort, with their forecasted spend, delivered as a
// hosted CSV in identified mode. Run once with the default config (a preview build), check the file, then
// `pulumi config set enabled true && pulumi up` to enable the pipeline.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();
const enabled = config.getBoolean("enabled") ?? false;

const leads = audience.getCohortOutput({ name: "Leads" });
const forecastedSpend = audience.getForecastOutput({ name: "Forecasted spend" });

const scope = new audience.Scope("adaptive-discounting", {
  name: "Adaptive discounting",
  population: { cohortIds: [leads.id] },
  payload: { forecastIds: [forecastedSpend.id] },
  preview: !enabled,
  waitFor: "ready",
});

const csv = new audience.Target("adaptive-discounting-csv", {
  name: "Adaptive discounting (hosted CSV)",
  scopeId: scope.id,
  representation: { mode: "identified" },
  options: { type: "hosted_csv" },
  waitFor: "ready",
});

export const scopeId = scope.id;
export const scopeStatus = scope.status;
export const previewing = scope.preview;
export const csvUrl = csv.outputUrl;
