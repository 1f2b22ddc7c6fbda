// Feature stores: an account with one may send the members that need a feature store.
import type { EmulatorFamily } from "../family.ts";

export const featureStore: EmulatorFamily = {
  collection: "feature_stores",
  accountFeature: "feature_store",
};
