import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INSUFFICIENT_IDENTITY, lookup } from "../../emulator/outputs/lookup.ts";
import { deliveryUsage, lookupUsage } from "../../emulator/outputs/usage.ts";
import type { Doc } from "../../emulator/world/resources.ts";
import { lift, outcomeScores } from "../../emulator/world/scores.ts";
import { fixtureWorld, IDS, resources, scopeDoc, targetDoc } from "./fixture.ts";

const world = fixtureWorld();
const res = resources();
const O = IDS.outcome;
const scores = outcomeScores(world, { id: O, attainment_cohort_id: IDS.buyers }, res);
const lookupTarget = targetDoc({ options: { type: "lookup_api" } });
const ask = (body: Doc, target: Doc = lookupTarget, scope: Doc = scopeDoc()) => lookup(world, target, scope, res, body);
const payloadOf = (p: number) => ({
  [`svc_outcome_${O}_propensity_percentile`]: scores.percentile[p],
  [`svc_outcome_${O}_propensity_probability`]: scores.probability[p],
  [`svc_outcome_${O}_propensity_lift`]: lift(scores, p),
});

describe("lookup", () => {
  it("matches by e-mail (any case, also a second e-mail) and echoes the request", () => {
    expect(ask({ email: "Cara@Example.com" })).toEqual({ email: "Cara@Example.com", ...payloadOf(2), match_type: "email", identity_provider: "identity_graph" });
    expect(ask({ email: "ann@work.example" })).toMatchObject({ ...payloadOf(0), match_type: "email" });
  });

  it("matches by e-mail hash", () => {
    const email_hash = createHash("sha256").update("finn@example.com").digest("hex");
    expect(ask({ email_hash })).toMatchObject({ email_hash, ...payloadOf(5), match_type: "email_hash" });
  });

  it("matches by phone only together with the last name", () => {
    expect(ask({ phone: "(206) 555-0104", person_last_name: "kim" })).toMatchObject({ ...payloadOf(3), match_type: "phone_and_last_name" });
    expect(ask({ phone: "(206) 555-0104", person_last_name: "Lee" }).error).toMatch(/no person/);
    expect(ask({ phone: "(206) 555-0104" })).toEqual({ phone: "(206) 555-0104", error: INSUFFICIENT_IDENTITY });
  });

  it("matches by address with city and state, picking the named resident", () => {
    const address = { house_number_and_street: "9  pine rd", city: "seattle", state: "wa" };
    expect(ask(address)).toMatchObject({ ...payloadOf(3), match_type: "address" });
    expect(ask({ ...address, person_first_name: "Eve" })).toMatchObject(payloadOf(4));
    expect(ask({ house_number_and_street: "9 Pine Rd", city: "Seattle" }).error).toBe(INSUFFICIENT_IDENTITY);
  });

  it("tries each of identity_sets until one matches", () => {
    const answer = ask({ identity_sets: [{ email: "nobody@example.com" }, { house_number_and_street: ["2 Elm St"], city: "Boston", state: "MA" }] });
    expect(answer).toMatchObject({ ...payloadOf(5), match_type: "address" });
  });

  it("answers an error text for a person outside the scope's population", () => {
    const buyersOnly = scopeDoc({ population: { cohort_ids: [IDS.buyers] } });
    expect(ask({ email: "finn@example.com" }, lookupTarget, buyersOnly)).toEqual({
      email: "finn@example.com", error: "no person in the scope's population matches the given identity",
    });
  });

  it("a lookup target predating the lift column answers the lift key with null", () => {
    const old = targetDoc({ options: { type: "lookup_api" }, created_at: "2024-05-01T00:00:00Z" });
    expect(ask({ email: "cara@example.com" }, old)).toMatchObject({ ...payloadOf(2), [`svc_outcome_${O}_propensity_lift`]: null });
  });
});

describe("usage", () => {
  const columns = ["email", `svc_outcome_${O}_propensity_percentile`, `svc_outcome_${O}_propensity_probability`, `svc_outcome_${O}_propensity_lift`, "svc_forecast_x_value"];

  it("bills probability and percentile as separate prediction columns and never lift", () => {
    expect(deliveryUsage(columns, { rows: 10, located: 0 }, false, false)).toEqual([["predictive_data", 30]]);
    expect(deliveryUsage([`avg_${columns[1]}`, `count_${columns[3]}`, `avg_${columns[3]}`], { rows: 4, located: 0 }, false, false))
      .toEqual([["predictive_data", 4]]);
    expect(lookupUsage(columns, false)).toEqual([["lookup_api_calls", 1], ["predictive_data", 3]]);
  });

  it("does not bill a preview scope's deliveries and counts people with a nearest location", () => {
    expect(deliveryUsage(columns, { rows: 10, located: 0 }, true, false)).toEqual([]);
    expect(deliveryUsage(columns, { rows: 10, located: 7 }, false, true)).toContainEqual(["people_with_nearest_location", 7]);
  });
});
