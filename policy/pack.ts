// The pack this folder is: `pulumi preview --policy-pack node_modules/pulumi-audience/policy`. Its package.json
// points here (built into dist/policy/pack.js); @pulumi/policy reads the pack's version from that package.json.
import { PolicyPack } from "@pulumi/policy";
import { audiencePolicies } from "./index.ts";

new PolicyPack("pulumi-audience", {
  description: "Guardrails for audience-prediction pipelines declared with pulumi-audience (either face).",
  enforcementLevel: "advisory",
  policies: audiencePolicies,
});
