import { createHash } from "node:crypto";
import { PassThrough } from "node:stream";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { csvStream } from "../../emulator/outputs/csv.ts";
import { targetTable, type Table } from "../../emulator/outputs/target.ts";
import { generateWorld, worldFromRecords } from "../../emulator/world/population.ts";
import type { Doc } from "../../emulator/world/resources.ts";
import { lift, outcomeScores, personaAssignment, recommenderScores } from "../../emulator/world/scores.ts";
import { fixtureWorld, IDS, PEOPLE, resources, scopeDoc, targetDoc } from "./fixture.ts";

const world = fixtureWorld();
const res = resources();
const O = IDS.outcome;
const OUTCOME_COLUMNS = [`svc_outcome_${O}_propensity_percentile`, `svc_outcome_${O}_propensity_probability`, `svc_outcome_${O}_propensity_lift`];
const IDENTITY = ["person_first_name", "person_last_name", "house_number_and_street", "city", "state", "postcode", "email", "phone"];
const scores = outcomeScores(world, { id: O, attainment_cohort_id: IDS.buyers }, res);
const outcomeCells = (p: number) => [scores.percentile[p], scores.probability[p], lift(scores, p)];

function deliver(target: Doc = {}, scope: Doc = {}, w = world): { columns: string[]; rows: unknown[][]; table: Table } {
  const table = targetTable(w, targetDoc(target), scopeDoc(scope), res);
  return { columns: table.columns, rows: Array.from(table.rows()), table };
}
const firstNames = (rows: unknown[][]) => rows.map((r) => r[0]);

describe("scope population", () => {
  it("unions cohorts without duplicates", () => {
    const { rows } = deliver({}, { population: { cohort_ids: [IDS.gold, IDS.bigSpenders, IDS.gold] } });
    expect(firstNames(rows)).toEqual(["Ann", "Cara", "Eve"]);
  });

  it("suppresses every address of an exclusion_address_level cohort", () => {
    // Bob is the only low-value person; Ann lives with him and goes too.
    const { rows } = deliver({}, { population: { cohort_ids: [IDS.everyone], exclusion_address_level_cohort_ids: [IDS.lowValue] } });
    expect(firstNames(rows)).toEqual(["Cara", "Dan", "Eve", "Finn"]);
    const personLevel = deliver({}, { population: { cohort_ids: [IDS.everyone], exclusion_cohort_ids: [IDS.lowValue] } });
    expect(firstNames(personLevel.rows)).toEqual(["Ann", "Cara", "Dan", "Eve", "Finn"]);
  });
});

describe("representation modes", () => {
  it("identified: identity columns then the outcome's percentile, probability and lift", () => {
    const { columns, rows } = deliver({}, { population: { cohort_ids: [IDS.bigSpenders] } });
    expect(columns).toEqual([...IDENTITY, ...OUTCOME_COLUMNS]);
    expect(rows).toEqual([
      ["Ann", "Lee", "1 Main St", "Austin", "TX", "78701", "ann.lee@example.com", "+15125550101", ...outcomeCells(0)],
      ["Cara", "Diaz", "5 Oak Ave", "Austin", "TX", "78702", "cara@example.com", null, ...outcomeCells(2)],
    ]);
  });

  it("identified with output_multiple_identities: one row per e-mail identity", () => {
    const { rows } = deliver({ representation: { mode: "identified", output_multiple_identities: true } }, { population: { cohort_ids: [IDS.bigSpenders] } });
    expect(rows.map((r) => [r[0], r[6]])).toEqual([["Ann", "ann.lee@example.com"], ["Ann", "ann@work.example"], ["Cara", "cara@example.com"]]);
  });

  it("identified per residence: one row per address", () => {
    const { columns, rows } = deliver({ representation: { mode: "identified", aggregate: "residence" } });
    expect(columns).toEqual(["house_number_and_street", "city", "state", "postcode", ...OUTCOME_COLUMNS]);
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ["1 Main St", "Austin", "TX", "78701"], ["5 Oak Ave", "Austin", "TX", "78702"], ["9 Pine Rd", "Seattle", "WA", "98101"], ["2 Elm St", "Boston", "MA", "02108"],
    ]);
  });

  it("impute_payload fills address-level people's attributes from a cohabitant", () => {
    const scope = { population: { cohort_ids: [IDS.lowValue, IDS.gold] }, payload: { attributes: ["ig/age"] } };
    expect(deliver({}, scope).rows.map((r) => [r[0], r[8]])).toEqual([["Ann", 41], ["Bob", null], ["Eve", 33]]);
    const imputed = deliver({ representation: { mode: "identified", impute_payload: ["attributes"] } }, scope);
    expect(imputed.rows.map((r) => [r[0], r[8]])).toEqual([["Ann", 41], ["Bob", 41], ["Eve", 33]]);
  });

  it("hashed: SHA-256 of normalized e-mail, phone and address instead of identities", () => {
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const { columns, rows } = deliver({ representation: { mode: "hashed" } }, { population: { cohort_ids: [IDS.bigSpenders] } });
    expect(columns).toEqual(["email_sha256", "phone_sha256", "address_sha256", ...OUTCOME_COLUMNS]);
    expect(rows[0]?.slice(0, 3)).toEqual([sha("ann.lee@example.com"), sha("5125550101"), sha("1 main st|austin|tx|78701")]);
    expect(rows[1]?.slice(0, 2)).toEqual([sha("cara@example.com"), null]);
  });

  it("referenced: the reference dataset's column in place of identities", () => {
    const representation = { mode: "referenced", reference: { dataset_id: IDS.dataset, column_name: "customer_id" } };
    const w = generateWorld({ size: 400 });
    const single = deliver({ representation }, {}, w);
    expect(single.columns).toEqual(["customer_id", ...OUTCOME_COLUMNS]);
    expect(single.rows.every((r) => /^[0-9A-Z]+-\d{8}$/.test(String(r[0])))).toBe(true);
    // About a fifth of the people are not in the dataset and are not delivered.
    expect(single.rows.length).toBeGreaterThan(280);
    expect(single.rows.length).toBeLessThan(360);
    const multiple = deliver({ representation: { ...representation, output_multiple_identities: true } }, {}, w);
    expect(multiple.rows.length).toBeGreaterThan(single.rows.length);
    expect(new Set(multiple.rows.map((r) => r[0])).size).toBe(multiple.rows.length);
  });

  it("aggregated: one row per geography with count, avg_ and the count_ / avg_ lift columns, and geometry", () => {
    const { columns, rows } = deliver({ representation: { mode: "aggregated", aggregate: "state", include_geometry: true } });
    expect(columns).toEqual(["state", "count", `avg_${OUTCOME_COLUMNS[0]}`, `avg_${OUTCOME_COLUMNS[1]}`, `count_${OUTCOME_COLUMNS[2]}`, `avg_${OUTCOME_COLUMNS[2]}`, "geometry"]);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([["MA", 1], ["TX", 3], ["WA", 2]]);
    const tx = rows[1] as unknown[];
    const avg = (values: number[]) => Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 1e4) / 1e4;
    expect(tx[2]).toBe(avg([0, 1, 2].map((p) => scores.percentile[p] as number)));
    expect(tx[4]).toBe(3);
    expect(tx[5]).toBe(avg([0, 1, 2].map((p) => lift(scores, p))));
    expect(JSON.parse(String(tx[6]))).toEqual({
      type: "Polygon", coordinates: [[[-97.7431, 30.2672], [-97.7431, 30.2672], [-97.7431, 30.2772], [-97.7431, 30.2772], [-97.7431, 30.2672]]],
    });
    const postcodes = deliver({ representation: { mode: "aggregated", aggregate: "postcode" } });
    expect(postcodes.rows.map((r) => r.slice(0, 2))).toEqual([["02108", 1], ["78701", 2], ["78702", 1], ["98101", 2]]);
  });

  it("a preview scope delivers at most 1000 rows", () => {
    const w = generateWorld({ size: 1500 });
    expect(deliver({}, { preview: true }, w).rows).toHaveLength(1000);
    expect(deliver({}, { preview: false }, w).rows).toHaveLength(1500);
  });
});

describe("payload columns", () => {
  it("persona, recommender, forecast and cohort membership columns", () => {
    const payload = { persona_set_ids: [IDS.personaSet], recommender_ids: [IDS.recommender], forecast_ids: [IDS.forecast], cohort_ids: [IDS.gold] };
    const { columns, rows } = deliver({}, { payload });
    expect(columns.slice(8)).toEqual([
      `svc_persona_set_${IDS.personaSet}_persona_id`, `svc_recommender_${IDS.recommender}_rank`,
      `svc_recommender_${IDS.recommender}_uncalibrated_probability`, `svc_forecast_${IDS.forecast}_value`, `svc_cohort_${IDS.gold}_member`,
    ]);
    const personas = personaAssignment(world, { id: IDS.personaSet, cohort_id: IDS.buyers, number_of_clusters: 3 }, res);
    expect(rows.map((r) => r[8])).toEqual([0, 1, 2, 3, 4, 5].map((p) => personas.personas[personas.persona[p] as number]?.id));
    expect(rows.map((r) => r[12])).toEqual([true, false, false, false, true, false]);
    expect(rows.every((r) => Number(r[9]) >= 1 && Number(r[9]) <= 10 && Number(r[11]) > 0)).toBe(true);
  });

  const at = (location: Doc, target: Doc = {}) => deliver(target, { payload: { location: { atlas_ids: [IDS.atlas], max_distance: 5000, ...location } } });

  it("location nearest: scalar distance, name and reference key; nobody in range gets empty cells", () => {
    const { columns, rows } = at({});
    expect(columns.slice(8)).toEqual(["svc_location_distance", "svc_location_name", "svc_location_reference_key"]);
    expect(rows.map((r) => r.slice(8))).toEqual([
      [0, "Downtown", "S1"], [0, "Downtown", "S1"], [1111.95, "Downtown", "S1"], [0, "Seattle", "S3"], [0, "Seattle", "S3"], [null, null, null],
    ]);
  });

  it("location all: index-aligned arrays, nearest first; min_distance and reference keys narrow them", () => {
    expect(at({ selection: "all" }).rows.map((r) => r.slice(8))).toEqual([
      [[0, 2779.88], ["Downtown", "North"], ["S1", "S2"]], [[0, 2779.88], ["Downtown", "North"], ["S1", "S2"]],
      [[1111.95, 1667.93], ["Downtown", "North"], ["S1", "S2"]], [[0], ["Seattle"], ["S3"]], [[0], ["Seattle"], ["S3"]], [null, null, null],
    ]);
    expect(at({ selection: "all", min_distance: 1000 }).rows.map((r) => r[9])).toEqual([["North"], ["North"], ["Downtown", "North"], null, null, null]);
    expect(at({ location_reference_keys: ["S2"] }).rows.map((r) => r[10])).toEqual(["S2", "S2", "S2", null, null, null]);
    expect(at({ conditions: [{ property: "kind", _eq: "outlet" }] }).rows.map((r) => r[9])).toEqual(["North", "North", "North", "Seattle", "Seattle", null]);
    // No max_distance: everyone matches at any distance (Boston is nearer the northern store).
    expect(at({ max_distance: null }).rows.map((r) => r[9])).toEqual(["Downtown", "Downtown", "Downtown", "Seattle", "Seattle", "North"]);
  });

  it("distance_output_units and human_readable name and convert the distance column", () => {
    expect(at({ distance_output_units: "miles" }).rows[2]?.[8]).toBe(0.69);
    expect(at({ distance_output_units: "miles" }).columns[8]).toBe("svc_location_distance");
    expect(at({}, { human_readable: true }).columns.slice(8)).toEqual(["svc_location_distance_m", "svc_location_name", "svc_location_reference_key"]);
    expect(at({ distance_output_units: "miles" }, { human_readable: true }).columns[8]).toBe("svc_location_distance_mi");
  });

  it("a target pinned to the default transform before the lift column has no lift column; a named preset has it", () => {
    const old = { created_at: "2024-01-01T00:00:00Z" };
    expect(deliver(old).columns).toEqual([...IDENTITY, ...OUTCOME_COLUMNS.slice(0, 2)]);
    expect(deliver({ ...old, representation: { mode: "identified", transform_preset: "standard" } }).columns).toEqual([...IDENTITY, ...OUTCOME_COLUMNS]);
  });
});

describe("filter", () => {
  const names = (filter: Doc) => firstNames(deliver({ filter }).rows);
  const trait = (condition: Doc) => names({ trait: [{ name: "lifetime_value", ...condition }] });

  it("applies every operator to traits", () => {
    expect(trait({ _eq: 90 })).toEqual(["Cara"]);
    expect(trait({ _gt: 90 })).toEqual(["Ann", "Finn"]);
    expect(trait({ _gte: 90 })).toEqual(["Ann", "Cara", "Finn"]);
    expect(trait({ _lt: 40 })).toEqual(["Bob"]);
    expect(trait({ _lte: 40 })).toEqual(["Bob", "Dan"]);
    expect(trait({ _null: true })).toEqual(["Eve"]);
    expect(trait({ _nnull: true })).toEqual(["Ann", "Bob", "Cara", "Dan", "Finn"]);
    expect(trait({ _in: [5, 700] })).toEqual(["Bob", "Finn"]);
    expect(trait({ _nin: [5, 700] })).toEqual(["Ann", "Cara", "Dan", "Eve"]);
    expect(names({ trait: [{ name: "loyalty_tier", _matches: "^(gold|plat)" }] })).toEqual(["Ann", "Eve", "Finn"]);
    expect(names({ attribute: [{ name: "ig/age", _gte: 35, _lt: 50 }] })).toEqual(["Ann", "Dan"]);
  });

  it("keeps or drops cohort members with cohort_membership _eq true / false", () => {
    expect(names({ cohort_membership: [{ cohort_id: IDS.buyers, _eq: true }] })).toEqual(["Ann", "Bob", "Cara", "Eve"]);
    expect(names({ cohort_membership: [{ cohort_id: IDS.buyers, _eq: false }] })).toEqual(["Dan", "Finn"]);
  });

  it("filters by outcome percentile and probability, persona and recommender", () => {
    const all = [0, 1, 2, 3, 4, 5];
    const NAMES = ["Ann", "Bob", "Cara", "Dan", "Eve", "Finn"];
    // Each expectation keeps some people and drops others, so a filter that keeps all or none cannot pass.
    const pick = (keep: (p: number) => boolean) => {
      const kept = all.filter(keep).map((p) => NAMES[p]);
      expect(kept.length, "the case should discriminate").toBeGreaterThan(0);
      expect(kept.length, "the case should discriminate").toBeLessThan(all.length);
      return kept;
    };
    expect(names({ outcome_percentile: [{ outcome_id: O, _gte: 50 }] })).toEqual(pick((p) => (scores.percentile[p] as number) >= 50));
    expect(names({ outcome_probability: [{ outcome_id: O, _lt: 0.2 }] })).toEqual(pick((p) => (scores.probability[p] as number) < 0.2));
    expect(names({ outcome_score: [{ outcome_id: O, _lte: 50 }] })).toEqual(pick((p) => (scores.percentile[p] as number) <= 50));
    const personas = personaAssignment(world, { id: IDS.personaSet, cohort_id: IDS.buyers, number_of_clusters: 3 }, res);
    const annPersona = personas.personas[personas.persona[0] as number]?.id;
    expect(names({ persona: [{ persona_set_id: IDS.personaSet, _eq: annPersona }] })).toEqual(pick((p) => personas.persona[p] === personas.persona[0]));
    expect(names({ persona: [{ persona_set_id: IDS.personaSet, _nin: [annPersona] }] })).toEqual(pick((p) => personas.persona[p] !== personas.persona[0]));
    const rec = recommenderScores(world, { id: IDS.recommender });
    expect(names({ recommender_rank: [{ recommender_id: IDS.recommender, _lte: 5 }] })).toEqual(pick((p) => (rec.rank[p] as number) <= 5));
    expect(names({ recommender_uncalibrated_probability: [{ recommender_id: IDS.recommender, _gt: 0.5 }] }))
      .toEqual(pick((p) => (rec.uncalibratedProbability[p] as number) > 0.5));
  });
});

describe("count / limit", () => {
  const byProbability = [0, 1, 2, 3, 4, 5].sort((a, b) => (scores.probability[b] as number) - (scores.probability[a] as number));
  const NAMES = ["Ann", "Bob", "Cara", "Dan", "Eve", "Finn"];

  it("keeps a percentile range of an outcome", () => {
    const limit = { method: "percentile", outcome_id: O, percentile_min: 40, percentile_max: 80 };
    const expected = [0, 1, 2, 3, 4, 5].filter((p) => (scores.percentile[p] as number) >= 40 && (scores.percentile[p] as number) <= 80).map((p) => NAMES[p]);
    expect(expected.length).toBeGreaterThan(0);
    expect(firstNames(deliver({ limit }).rows)).toEqual(expected);
    expect(firstNames(deliver({ count: limit }).rows)).toEqual(expected);
  });

  it("keeps a row count, best (or worst) scoring first when an outcome is named", () => {
    expect(firstNames(deliver({ limit: { method: "row_count", threshold: 2, outcome_id: O } }).rows)).toEqual(byProbability.slice(0, 2).map((p) => NAMES[p]));
    expect(firstNames(deliver({ limit: { method: "row_count", threshold: 2, outcome_id: O, direction: "asc" } }).rows))
      .toEqual(byProbability.slice(-2).reverse().map((p) => NAMES[p]));
    expect(firstNames(deliver({ limit: { method: "row_count", threshold: 4 } }).rows)).toEqual(["Ann", "Bob", "Cara", "Dan"]);
  });
});

describe("CSV", () => {
  async function text(table: Table, options: Parameters<typeof csvStream>[1]) {
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on("data", (c: Buffer) => chunks.push(c));
    await new Promise<void>((resolve, reject) => csvStream(table, options).on("error", reject).pipe(sink).on("finish", resolve));
    return Buffer.concat(chunks);
  }
  const table = () => deliver({}, { population: { cohort_ids: [IDS.bigSpenders] }, payload: { location: { atlas_ids: [IDS.atlas], selection: "all", max_distance: 5000 } } }).table;

  it("writes a header and rows with the target's delimiter; arrays as JSON, null as empty", async () => {
    const csv = (await text(table(), { delimiter: ";" })).toString();
    const lines = csv.trimEnd().split("\n");
    expect(lines[0]).toBe([...IDENTITY, "svc_location_distance", "svc_location_name", "svc_location_reference_key"].join(";"));
    expect(lines[2]).toBe('Cara;Diaz;5 Oak Ave;Austin;TX;78702;cara@example.com;;[1111.95,1667.93];"[""Downtown"",""North""]";"[""S1"",""S2""]"');
  });

  it("quotes only the fields that hold the delimiter, a quote or a line break", async () => {
    const person = { ...PEOPLE[5]!, first_name: "Mary Ann", last_name: 'O"Neil, Jr', traits: {}, events: {} };
    const w = worldFromRecords([PEOPLE[4]!, person]);
    const t = targetTable(w, targetDoc(), scopeDoc(), res);
    const lines = (await text(t, {})).toString().trimEnd().split("\n");
    expect(lines[1]?.startsWith("Eve,Kim,9 Pine Rd,Seattle,WA,98101,eve.kim@example.com,+12065550105,")).toBe(true);
    expect(lines[2]?.startsWith('Mary Ann,"O""Neil, Jr",2 Elm St,Boston,MA,02108,finn@example.com,')).toBe(true);
    expect((await text(t, { delimiter: ";" })).toString().split("\n")[2]?.startsWith('Mary Ann;"O""Neil, Jr";2 Elm St;')).toBe(true);
  });

  it("quotes every field with quote_all and compresses with gzip", async () => {
    const csv = gunzipSync(await text(table(), { quote_all: true, gzip: true })).toString();
    expect(csv.split("\n")[2]).toBe('"Cara","Diaz","5 Oak Ave","Austin","TX","78702","cara@example.com","","[1111.95,1667.93]","[""Downtown"",""North""]","[""S1"",""S2""]"');
  });
});
