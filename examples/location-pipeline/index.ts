// A location pipeline: an atlas of stores, a cohort of people within 5 km of one, a scope publishing each
// person's nearest store (distance in miles), delivered aggregated by postcode.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();

const stores = new audience.Atlas("stores", {
  name: "Stores",
  options: { type: "hosted_csv", uploadDirectory: config.get("storesDirectory") ?? "stores" },
  outputToLocations: { name: "store_name", referenceKey: "store_id", latitude: "lat", longitude: "lon" },
});

const nearStores = new audience.Cohort("near-stores", {
  name: "Within 5 km of a store",
  locationConditions: [{ atlasId: stores.id, distance: 5000 }],
});

const proximity = new audience.Scope("store-proximity", {
  name: "Store proximity",
  population: { cohortIds: [nearStores.id] },
  payload: {
    location: { atlasIds: [stores.id], selection: "nearest", maxDistance: 20_000, distanceOutputUnits: "miles" },
  },
  preview: true,
});

const byPostcode = new audience.Target("store-proximity-by-postcode", {
  name: "Store proximity by postcode",
  scopeId: proximity.id,
  representation: { mode: "aggregated", aggregate: "postcode" },
  options: { type: "hosted_csv" },
});

export const atlasId = stores.id;
export const cohortId = nearStores.id;
export const csvUrl = byPostcode.outputUrl;
