// The walk drift uses instead of normalizing a listed document: whenever it says "as the state records", the
// provider's read gives exactly the state's inputs back; every other document is left to the read.
import { describe, expect, it } from "vitest";
import type { Environment } from "../../provider/runtime/lifecycle/environment.ts";
import { read, readInputs, readsBack } from "../../provider/runtime/lifecycle/read.ts";

type Props = Record<string, unknown>;

const COHORT = {
  id: "2504df55-cf87-4ca2-a155-8cd98c614e2d", created_at: "2026-11-23T03:21:15.412Z", updated_at: "2026-11-23T03:21:15.412Z",
  resource_type: "cohorts", status: "ready", status_error: null, archived_at: null, name: "Cohort 0", explore: false,
  min_count: 10, population_count: 5000, residence_count: 2105,
};
const COHORT_INPUTS = { account: "north", __kind: "cohorts", name: "Cohort 0", explore: false, minCount: 10 };
const CONNECTION = {
  id: "924df3fd-dcd2-41ef-90d7-335ed0ac3364", status: "ready", status_error: null, name: "Warehouse 1", directionality: "bidirectional", managed: false,
  options: { type: "postgres", host: "db-1", port: 5432, database: "d", schema: "s", user: "u", password: "<secret>" },
};
const CONNECTION_INPUTS = { account: "north", __kind: "connections", name: "Warehouse 1", options: { type: "postgres", host: "db-1", port: 5432, database: "d", schema: "s", user: "u", password: "pw-1" } };

/** What refresh would record for `doc` over a state holding `inputs` (and outputs as recorded), and the walk's answer. */
function both(doc: Props, inputs: Props, outputs: Props = {}) {
  const props = { ...outputs, ...inputs };
  return { walk: readsBack(outputs, inputs, doc), read: readInputs(props, doc) };
}

describe("readsBack", () => {
  it("says a document untouched since it was made reads back as the state's inputs, and the read agrees", () => {
    for (const [doc, inputs] of [[COHORT, COHORT_INPUTS], [CONNECTION, CONNECTION_INPUTS]] as const) {
      const { walk, read } = both(doc, inputs, { status: "ready" });
      expect(walk).toBe(true);
      expect(read).toEqual(inputs);
    }
  });

  it("takes the service's <secret> for the declared value, as the read does", () => {
    expect(both(CONNECTION, CONNECTION_INPUTS).read).toMatchObject({ options: { password: "pw-1" } });
    expect(both(CONNECTION, CONNECTION_INPUTS).walk).toBe(true);
  });

  it("leaves a member changed by hand to the read, which shows the live value", () => {
    const cohort = both({ ...COHORT, min_count: 99 }, COHORT_INPUTS);
    expect(cohort).toEqual({ walk: false, read: { ...COHORT_INPUTS, minCount: 99 } });
    const connection = both({ ...CONNECTION, options: { ...CONNECTION.options, host: "db-other" } }, CONNECTION_INPUTS);
    expect(connection.walk).toBe(false);
    expect(connection.read).toMatchObject({ options: { host: "db-other", password: "pw-1" } });
  });

  it("leaves to the read a member the document lacks, one the state lacks, and a default the parse would fill", () => {
    const { min_count: _dropped, ...withoutCount } = COHORT;
    expect(both(withoutCount, COHORT_INPUTS)).toEqual({ walk: false, read: { ...COHORT_INPUTS, minCount: undefined } });
    expect(both({ ...COHORT, max_count: 50 }, COHORT_INPUTS).walk).toBe(false);
    // `explore` defaults to false: absent from both, the read fills it, so the state (without it) differs.
    const { explore: _explore, ...noExplore } = COHORT;
    const { explore: _declared, ...inputsWithoutExplore } = COHORT_INPUTS;
    expect(both(noExplore, inputsWithoutExplore)).toEqual({ walk: false, read: { ...inputsWithoutExplore, explore: false } });
  });

  it("counts null as absent, as the normalization does", () => {
    expect(both({ ...COHORT, max_count: null, stream_name: null }, COHORT_INPUTS).walk).toBe(true);
  });

  it("decides a connection in sync only when its chosen option parses, as the read's normalization needs", () => {
    // Equal to the state, but a port no option takes (a state from before the rule): left to the read.
    const invalid = { ...CONNECTION_INPUTS.options, port: 70000 };
    expect(both({ ...CONNECTION, options: { ...CONNECTION.options, port: 70000 } }, { ...CONNECTION_INPUTS, options: invalid }).walk).toBe(false);
    // A null member and one the option does not take are left out, as the read leaves them out.
    const extra = both({ ...CONNECTION, options: { ...CONNECTION.options, ssl: null, region: "eu" } }, CONNECTION_INPUTS);
    expect(extra).toEqual({ walk: true, read: CONNECTION_INPUTS });
    const extraInvalid = both({ ...CONNECTION, options: { ...CONNECTION.options, port: 70000, region: "eu" } }, { ...CONNECTION_INPUTS, options: invalid });
    expect(extraInvalid.walk).toBe(false);
  });

  it("leaves to the read controls the outputs hold but the inputs do not", () => {
    const { account: _account, ...inputs } = COHORT_INPUTS;
    expect(both(COHORT, inputs, { account: "north" }).walk).toBe(false);
  });
});

describe("read over recorded inputs", () => {
  /** The lifecycle's read of `doc` (the service's answer) over a state of `outputs` over `inputs`, as the hosts call it. */
  async function readOver(doc: Props, inputs: Props, outputs: Props) {
    const env = { service: () => ({ find: async () => doc }) } as unknown as Environment;
    return (await read(env, String(doc["id"]), { ...inputs, ...outputs }, inputs)).inputs;
  }

  it("gives back the recorded inputs when the document reads back as them", async () => {
    expect(await readOver(COHORT, COHORT_INPUTS, { status: "ready" })).toEqual(readInputs({ status: "ready", ...COHORT_INPUTS }, COHORT));
  });

  it("records an archive made outside the program, though the rest reads back", async () => {
    const archived = { ...COHORT, archived_at: "2026-11-24T08:00:00.000Z" };
    expect(both(archived, COHORT_INPUTS).walk).toBe(false);
    expect(await readOver(archived, COHORT_INPUTS, {})).toEqual({ ...COHORT_INPUTS, archivedAt: "2026-11-24T08:00:00.000Z" });
  });

  it("reads as before where the recorded outputs and inputs disagree (the outputs win)", async () => {
    const outputs = { account: "south" };
    expect(await readOver(COHORT, COHORT_INPUTS, outputs)).toEqual(readInputs({ ...COHORT_INPUTS, ...outputs }, COHORT));
    expect(await readOver(COHORT, COHORT_INPUTS, outputs)).toMatchObject({ account: "south" });
  });
});
