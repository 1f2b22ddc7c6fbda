// The field docs of every family, keyed by collection, and the one reading of them that program types, provider
// schemas and the docs-coverage test share: a member's text, the facts its schema states, its deprecation.
import type { z } from "zod";
import { accountDocs } from "./account.ts";
import { atlasDocs, locationDocs } from "./atlas.ts";
import { attributeDocs, featureStoreDocs } from "./attribute.ts";
import { auditDocs } from "./audit.ts";
import { cohortDocs } from "./cohort.ts";
import type { FamilyDef } from "./common.ts";
import { connectionDocs } from "./connection.ts";
import { datasetDocs } from "./dataset.ts";
import { commonDocs, docParts, memberFacts, membersOf, type Member, type MemberDoc, type MemberDocs } from "./docs.ts";
import { forecastDocs } from "./forecast.ts";
import type { Collection } from "./index.ts";
import { insightsDocs } from "./insights.ts";
import { marketOpportunityAnalysisDocs } from "./market-opportunity-analysis.ts";
import { migrationDocs } from "./migration.ts";
import { camelKey } from "./naming.ts";
import { outcomeDocs } from "./outcome.ts";
import { personaSetDocs } from "./persona-set.ts";
import { placeDocs } from "./place.ts";
import { recommenderDocs } from "./recommender.ts";
import { scopeDocs } from "./scope.ts";
import { streamDocs } from "./stream.ts";
import { targetDocs } from "./target.ts";
import { traitDocs } from "./trait.ts";
import { uploadDocs } from "./upload.ts";
import { useCaseDocs } from "./use-case.ts";
import { webhookEndpointDocs } from "./webhook-endpoint.ts";

/** Each family's member docs, by collection; the common bookkeeping members are documented once in `commonDocs`. */
export const familyDocs: Readonly<Record<Collection, MemberDocs>> = {
  scopes: scopeDocs,
  targets: targetDocs,
  cohorts: cohortDocs,
  forecasts: forecastDocs,
  atlases: atlasDocs,
  locations: locationDocs,
  streams: streamDocs,
  traits: traitDocs,
  attributes: attributeDocs,
  feature_stores: featureStoreDocs,
  persona_sets: personaSetDocs,
  outcomes: outcomeDocs,
  recommenders: recommenderDocs,
  datasets: datasetDocs,
  connections: connectionDocs,
  accounts: accountDocs,
  webhook_endpoints: webhookEndpointDocs,
  migrations: migrationDocs,
  audits: auditDocs,
  use_cases: useCaseDocs,
  insights: insightsDocs,
  market_opportunity_analyses: marketOpportunityAnalysisDocs,
  uploads: uploadDocs,
  places: placeDocs,
};

/** A member with the doc a reader sees: its text followed by the facts its schema and family state. */
export interface DocumentedMember extends Member {
  /** Undefined when the member has no doc (the docs-coverage test fails on it). */
  description: string | undefined;
  /** What to use instead, for a deprecated member. */
  deprecated?: string;
}

/** The doc written for a member path of a family (its own table first, then the common members). */
export function memberDoc(collection: Collection, path: string): MemberDoc | undefined {
  const own = familyDocs[collection];
  return Object.hasOwn(own, path) ? own[path] : Object.hasOwn(commonDocs, path) ? commonDocs[path as keyof typeof commonDocs] : undefined;
}

/** Every member of `schema` (a family's create or response schema), each with its description. */
export function documentedMembers(collection: Collection, family: FamilyDef, schema: z.ZodType): DocumentedMember[] {
  return membersOf(schema).map((member) => {
    const doc = memberDoc(collection, member.path);
    if (doc === undefined) return { ...member, description: undefined };
    const parts = docParts(doc);
    // A union's discriminator shows no doc of its own in editors, so its owner says when it replaces.
    const replacingChildren = family.createOnly.filter((p) => p.startsWith(`${member.path}.`))
      .map((p) => `Changing \`${p.slice(member.path.length + 1).split(".").map(camelKey).join(".")}\` replaces the resource.`);
    const facts = [...memberFacts(member.schema, family.createOnly.includes(member.path)), ...replacingChildren];
    const description = [parts.doc, ...facts].join(" ");
    return parts.deprecated === undefined ? { ...member, description } : { ...member, description, deprecated: parts.deprecated };
  });
}
