// A location pipeline: our stores uploaded as a CSV, an atlas of them, a cohort of people within 5 km of one, a
// scope publishing each person's nearest store (distance in miles), delivered aggregated by postcode.
import * as pulumi from "@pulumi/pulumi";
import * as audience from "pulumi-audience";

const config = new pulumi.Config();

const storesFile = new audience.Upload("stores-csv", {
  directory: config.get("storesDirectory") ?? "stores",
  filename: "stores.csv",
  content: [
    "store_id,store_name,lat,lon",
    "s-001,Main Street,40.7128,-74.0060",
    "s-002,Riverside,40.8005,-73.9712",
    "s-003,Harbour Point,40.6413,-74.0776",
  ].join("\n") + "\n",
});

const stores = new audience.Atlas("stores", {
  name: "Stores",
  options: { type: "hosted_csv", uploadDirectory: storesFile.directory },
  outputToLocations: { name: "store_name", referenceKey: "store_id", latitude: "lat", longitude: "lon" },
}, { dependsOn: [storesFile] });

const nearStores = new audience.Cohort("near-stores", {
  name: "Within 5 km of a store",
  locationConditions: [{ atlasId: stores.id, distance: 5000 }],
});

const proximity = new audience.Scope("store-proximity", {
  name: "Store proximity",
  population: { cohortIds: [nearStores.id] },
  payload: {
    location: {
      atlasIds: [stores.id],
      selection: "nearest",
      maxDistance: config.getNumber("maxDistanceMeters") ?? 20_000,
      distanceOutputUnits: "miles",
    },
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
