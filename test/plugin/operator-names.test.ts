// Operator members through the plugin, driven as the engine drives it: a program generated from the schema (Go,
// Python, .NET) names them `$gte`, `$onOrAfter`; a TypeScript program `_gte`, `_on_or_after`; the service gets
// `_gte` either way. Inputs come back in the program's names, outputs in the schema's (a read: as recorded), a check's
// messages in the program's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../emulator/helpers.ts";
import { isSecret, secret, startWorld, type Props, type World } from "./harness.ts";

const COHORT = "audience:index:Cohort";

let world: World;

beforeAll(async () => {
  world = await startWorld();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

/** The cohort as the service holds it. */
async function stored(id: string): Promise<Json> {
  const { status, body } = await world.api.get<Json>(`/v1/cohorts/${id}`);
  expect(status).toBe(200);
  return body;
}

async function checked(olds: Props, news: Props): Promise<Props> {
  const result = await world.plugin.check(COHORT, olds, news);
  expect(result.failures).toEqual([]);
  return result.inputs;
}

const conditions = (gte: unknown) => [{ property: "amount", $gte: gte }, { property: "datetime", $onOrAfter: "2024-01-01" }];

describe("operator members named as the schema names them ($gte)", () => {
  it("are sent to the service as _gte, read back, diffed, updated and imported under their schema names", async () => {
    const inputs = await checked({}, { name: "Schema spenders", streamName: "transactions", streamConditions: conditions(100) });
    expect(inputs.streamConditions).toEqual(conditions(100));

    const made = await world.plugin.create(COHORT, inputs);
    expect(made.properties.streamConditions).toEqual(conditions(100));
    expect((await stored(made.id)).stream_conditions).toEqual([{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }]);

    const refreshed = await world.plugin.read(COHORT, made.id, made.properties, inputs);
    expect(refreshed.properties.streamConditions).toEqual(conditions(100));
    expect(refreshed.inputs).toEqual(inputs);
    expect((await world.plugin.diff(COHORT, made.id, made.properties, inputs)).changes).toBe("none");

    const news = await checked(inputs, { ...inputs, streamConditions: conditions(150) });
    const diff = await world.plugin.diff(COHORT, made.id, made.properties, news);
    expect(diff.detailed).toEqual({ "streamConditions[0].$gte": "UPDATE" });
    const updated = await world.plugin.update(COHORT, made.id, made.properties, news);
    expect(updated.streamConditions).toEqual(conditions(150));
    expect((await stored(made.id)).stream_conditions).toEqual([{ property: "amount", _gte: 150 }, { property: "datetime", _on_or_after: "2024-01-01" }]);

    // `pulumi import` reads by id alone: the inputs a generated program writes, which the program's check agrees with.
    const imported = await world.plugin.read(COHORT, made.id);
    expect(imported.inputs).toEqual(news);
    expect((await world.plugin.diff(COHORT, made.id, imported.properties, await checked(imported.inputs, news))).changes).toBe("none");

    const found = await world.plugin.invoke("audience:index:getCohort", { id: made.id });
    expect(found.streamConditions).toEqual(conditions(150));
  });

  it("keep the conditions secret in the outputs when an operator's value was given secret", async () => {
    const inputs = await checked({}, { name: "Secret threshold", streamName: "transactions", streamConditions: [{ property: "amount", $gte: secret(250) }] });
    const made = await world.plugin.create(COHORT, inputs);
    // The engine keeps secretness member by member but not inside arrays: the whole list is secret.
    const outputs = made.properties.streamConditions as Props;
    expect(isSecret(outputs)).toBe(true);
    expect(outputs.value).toEqual([{ property: "amount", $gte: 250 }]);
    expect((await stored(made.id)).stream_conditions).toEqual([{ property: "amount", _gte: 250 }]);
  });
});

describe("operator members named as TypeScript programs name them (_gte)", () => {
  it("keep those names in the inputs and diff paths, and match a state recorded under either name", async () => {
    const legacy = [{ property: "amount", _gte: 100 }, { property: "datetime", _on_or_after: "2024-01-01" }];
    const inputs = await checked({}, { name: "TypeScript spenders", streamName: "transactions", streamConditions: legacy });
    expect(inputs.streamConditions).toEqual(legacy);
    const made = await world.plugin.create(COHORT, inputs);
    expect(made.properties.streamConditions).toEqual(conditions(100));
    expect((await stored(made.id)).stream_conditions).toEqual(legacy);

    const refreshed = await world.plugin.read(COHORT, made.id, made.properties, inputs);
    expect(refreshed.inputs).toEqual(inputs);
    expect(refreshed.properties.streamConditions).toEqual(conditions(100));

    // A state written before the schema named them `$gte` holds `_gte` outputs: nothing changes, and a read answers
    // them as recorded, so refreshing it finds nothing.
    const before = { ...made.properties, streamConditions: legacy };
    expect((await world.plugin.diff(COHORT, made.id, before, inputs)).changes).toBe("none");
    const reread = await world.plugin.read(COHORT, made.id, before, inputs);
    expect(reread.properties).toEqual(before);
    expect(reread.inputs).toEqual(inputs);
    // Outputs recorded in the schema's names stay in them, whatever the inputs' names.
    expect((await world.plugin.read(COHORT, made.id, made.properties, inputs)).properties.streamConditions).toEqual(conditions(100));

    const news = await checked(inputs, { ...inputs, streamConditions: [{ ...legacy[0], _gte: 120 }, legacy[1]] });
    expect((await world.plugin.diff(COHORT, made.id, made.properties, news)).detailed).toEqual({ "streamConditions[0]._gte": "UPDATE" });
  });
});

describe("a check's messages name operators as the program does", () => {
  it("in the schema's names where the program wrote those, as written where it wrote TypeScript's or none", async () => {
    const reasons = async (streamConditions: Props[]) => (await world.plugin.check(COHORT, {}, { name: "Typo", streamName: "transactions", streamConditions })).failures.map((f) => f.reason);
    const schemaNamed = await reasons([{ property: "amount", $gte: 1 }, { property: "amount" }]);
    expect(schemaNamed).toEqual([expect.stringMatching(/^streamConditions\[1\]: must give an operator: one of \$eq, \$in, .*, \$onOrBefore, \$onOrAfter$/)]);
    const typeScriptNamed = await reasons([{ property: "amount", _gte: 1 }, { property: "amount" }]);
    expect(typeScriptNamed).toEqual([expect.stringMatching(/one of _eq, _in, .*, _on_or_before, _on_or_after$/)]);
    expect(await reasons([{ property: "amount" }])).toEqual([expect.stringMatching(/one of _eq, _in, .*, _on_or_before, _on_or_after$/)]);
  });
});
