// Every family module of the emulator: what a family does beyond the contract's generic behaviour (quirks, own
// routes, what /openapi.json says of them). The entry (emulator/index.ts) hands this list to the core; a family
// without quirks has no module.
import type { EmulatorFamily } from "../family.ts";
import { account } from "./account.ts";
import { atlas } from "./atlas.ts";
import { audit } from "./audit.ts";
import { cohort } from "./cohort.ts";
import { connection } from "./connection.ts";
import { dataset } from "./dataset.ts";
import { featureStore } from "./feature-store.ts";
import { forecast } from "./forecast.ts";
import { insights } from "./insights.ts";
import { migration } from "./migration.ts";
import { outcome } from "./outcome.ts";
import { personaSet } from "./persona-set.ts";
import { recommender } from "./recommender.ts";
import { scope } from "./scope.ts";
import { stream } from "./stream.ts";
import { target } from "./target.ts";
import { trait } from "./trait.ts";
import { upload } from "./upload.ts";
import { webhookEndpoint } from "./webhook-endpoint.ts";

export const FAMILIES: readonly EmulatorFamily[] = [
  account, atlas, audit, cohort, connection, dataset, featureStore, forecast, insights, migration, outcome, personaSet,
  recommender, scope, stream, target, trait, upload, webhookEndpoint,
];
