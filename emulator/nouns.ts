// The names of collections as the service's messages say them.
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";

/** A collection's singular in messages ("market_opportunity_analysis"); the collection itself when unknown. */
export function singular(collection: string): string {
  return (families as Record<string, FamilyDef>)[collection]?.name ?? collection;
}
