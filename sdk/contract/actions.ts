// Bodies of the actions that are not a family's create or patch: archive / unarchive and lookups.
import { z } from "zod";
import { ids, issue } from "./fields.ts";

/** Body of POST /{collection}/{id}/archive and /unarchive (optional). */
export const archiveRequest = z.strictObject({
  /** Ids of downstream (archive) or upstream (unarchive) resources that may move along. */
  cascade_to: ids.optional(),
  /** Move everything downstream (archive) or upstream (unarchive) along. */
  cascade_to_all: z.boolean().optional(),
});
export type ArchiveRequest = z.input<typeof archiveRequest>;

const value = z.string().optional();

/** What a caller knows of one person. */
export const lookupRecord = z.strictObject({
  person_first_name: value,
  person_last_name: value,
  house_number_and_street: z.union([z.string(), z.array(z.string())]).optional(),
  city: value,
  state: value,
  postcode: value,
  phone: value,
  email: value,
  email_hash: value,
});
export type LookupRecord = z.input<typeof lookupRecord>;

const present = (v: unknown) => (Array.isArray(v) ? v.some((x) => typeof x === "string" && x.trim() !== "") : typeof v === "string" && v.trim() !== "");

/** Whether a record can be matched: an e-mail (or its hash), a phone with last name, or an address with city and state. */
export function lookupRecordMatchable(r: LookupRecord): boolean {
  return present(r.email) || present(r.email_hash) || (present(r.phone) && present(r.person_last_name))
    || (present(r.house_number_and_street) && present(r.city) && present(r.state));
}
export const LOOKUP_MATCHABLE = "email or email_hash; or phone with person_last_name; or house_number_and_street with city and state";

/** Body of POST /targets/{id}/lookup: the person's own fields, and/or several identifying records. */
export const lookupRequest = lookupRecord.extend({
  identity_sets: z.union([z.array(lookupRecord), z.record(z.string(), lookupRecord)]).optional(),
}).check((ctx) => {
  const { identity_sets: sets, ...own } = ctx.value;
  const records = [own, ...(Array.isArray(sets) ? sets : Object.values(sets ?? {}))];
  if (!records.some(lookupRecordMatchable)) issue(ctx, [], `must identify the person: give ${LOOKUP_MATCHABLE}`);
});
export type LookupRequest = z.input<typeof lookupRequest>;

/** Answer of a lookup: the inputs echoed, payload columns (svc_...), match_type and identity_provider, or an error text. */
export const lookupResponse = z.object({
  match_type: z.string().nullish(),
  identity_provider: z.string().nullish(),
  error: z.string().nullish(),
}).loose();
export type LookupResponse = z.output<typeof lookupResponse>;
