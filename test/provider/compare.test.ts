// The lifecycle's diff of recorded outputs against declared inputs: outputs that read back as the inputs are no
// change (decided by one walk), and everything else is normalized and compared member by member.
import { describe, expect, it } from "vitest";
import { compare } from "../../provider/runtime/lifecycle/diff.ts";

type Props = Record<string, unknown>;

const COHORT_INPUTS = { account: "north", __kind: "cohorts", name: "Cohort 0", explore: false, minCount: 10 };
const COHORT_OUTPUTS = { ...COHORT_INPUTS, createdAt: "2026-11-23T03:21:15.412Z", status: "ready", statusError: null, archivedAt: null, populationCount: 5000 };
const CONNECTION_INPUTS = { account: "north", __kind: "connections", name: "Warehouse 1", options: { type: "postgres", host: "db-1", port: 5432, database: "d", schema: "s", user: "u", password: "pw-1" } };
const CONNECTION_OUTPUTS = { ...CONNECTION_INPUTS, status: "ready", statusError: null, directionality: "bidirectional", managed: false };

const changes = async (olds: Props, news: Props) => {
  const { changed, replaces, details } = await compare(olds, news);
  return { changed, replaces, paths: details.map((d) => d.path) };
};

describe("compare", () => {
  it("finds nothing when the recorded outputs read back as the inputs", async () => {
    expect(await changes(COHORT_OUTPUTS, COHORT_INPUTS)).toEqual({ changed: [], replaces: [], paths: [] });
    expect(await changes(CONNECTION_OUTPUTS, CONNECTION_INPUTS)).toEqual({ changed: [], replaces: [], paths: [] });
  });

  it("names a member changed by hand, at its path", async () => {
    expect(await changes({ ...COHORT_OUTPUTS, minCount: 99 }, COHORT_INPUTS)).toEqual({ changed: ["minCount"], replaces: [], paths: ["minCount"] });
    const moved = { ...CONNECTION_OUTPUTS, options: { ...CONNECTION_OUTPUTS.options, host: "db-2" } };
    expect(await changes(moved, CONNECTION_INPUTS)).toMatchObject({ changed: ["options"], paths: ["options.host"] });
  });

  it("takes a recorded <secret> (an import, which never saw the value) as a change to the declared value", async () => {
    const imported = { ...CONNECTION_OUTPUTS, options: { ...CONNECTION_OUTPUTS.options, password: "<secret>" } };
    expect(await changes(imported, CONNECTION_INPUTS)).toMatchObject({ changed: ["options"], paths: ["options.password"] });
  });

  it("fills the defaults of the known members while another is unknown (a preview): only that one changes", async () => {
    const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const target = { account: "north", __kind: "targets", name: "CSV", scopeId: "7e0c2f8e-5d1a-4f3e-9a7b-2c6d8e0f1a2b", representation: { mode: "identified" }, options: { type: "hosted_csv" } };
    const recorded = { ...target, representation: { mode: "identified", imputePayload: [], outputMultipleIdentities: false }, status: "ready" };
    expect(await changes(recorded, { ...target, scopeId: UNKNOWN })).toMatchObject({ changed: ["scopeId"], paths: ["scopeId"] });
    // Unknown where the contract wants no string: the whole body cannot parse, each other member still does.
    expect(await changes(recorded, { ...target, options: { type: "hosted_csv", gzip: UNKNOWN } })).toMatchObject({ changed: ["options"] });
  });

  it("a build the program waits for, recorded unfinished (its wait ran out), is awaited by an update, which says why", async () => {
    const waiting = { ...COHORT_INPUTS, waitFor: "ready" };
    const recorded = { ...COHORT_OUTPUTS, waitFor: "ready", status: "new" };
    expect(await compare(recorded, waiting)).toMatchObject({ changed: ["build"], replaces: [], unfinishedBuild: "new" });
    expect(await changes({ ...recorded, status: "ready" }, waiting)).toEqual({ changed: [], replaces: [], paths: [] });
    expect(await changes({ ...COHORT_OUTPUTS, status: "new" }, COHORT_INPUTS)).toEqual({ changed: [], replaces: [], paths: [] });
  });

  it("fills defaults on both sides: a default recorded or declared alone is no change", async () => {
    const { explore: _recorded, ...withoutExplore } = COHORT_OUTPUTS;
    expect(await changes(withoutExplore, COHORT_INPUTS)).toEqual({ changed: [], replaces: [], paths: [] });
    const { explore: _declared, ...declaredWithout } = COHORT_INPUTS;
    expect(await changes(COHORT_OUTPUTS, declaredWithout)).toEqual({ changed: [], replaces: [], paths: [] });
  });

  it("still tells a control or a create-only member apart", async () => {
    expect((await changes(COHORT_OUTPUTS, { ...COHORT_INPUTS, account: "south" })).changed).toEqual(["account"]);
    const options = { ...CONNECTION_INPUTS.options, type: "mysql" };
    expect(await changes(CONNECTION_OUTPUTS, { ...CONNECTION_INPUTS, options })).toMatchObject({ changed: ["options"] });
  });
});
