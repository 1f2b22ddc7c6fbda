// Finds gathered into `?ids=` lists: what one list answers, what it leaves to a read of its own, how its failures
// reach each find, and how many lists are in flight; then the same against the emulator, counting its requests.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { AudienceApiError, ServerError } from "pulumi-audience/sdk/client";
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";
import { findInBatches, LISTS_IN_FLIGHT } from "../../provider/runtime/lifecycle/find-batches.ts";
import { clientService } from "../../provider/runtime/lifecycle/service-client.ts";
import type { Props } from "../../provider/runtime/lifecycle/shape.ts";
import { emulatorControl } from "../engine/emulator-control.ts";

const cohorts = families.cohorts as FamilyDef;
const outcomes = families.outcomes as FamilyDef;

/** A fake service holding `held` ids; each list waits until `release` is called when `hold` is set. */
function fake(held: string[], options: { hold?: boolean; fail?: unknown } = {}) {
  const lists: { family: string; ids: string[] }[] = [];
  const alone: string[] = [];
  const waiting: (() => void)[] = [];
  const listIds = async (family: FamilyDef, ids: string[]) => {
    lists.push({ family: family.collection, ids });
    if (options.hold) await new Promise<void>((resolve) => waiting.push(resolve));
    if (options.fail) throw options.fail;
    return ids.filter((id) => held.includes(id)).map((id) => ({ id, name: `n-${id}` }));
  };
  const findOne = async (_family: FamilyDef, id: string): Promise<Props | undefined> => {
    alone.push(id);
    return id.startsWith("archived") ? { id, archived_at: "2026-01-01T00:00:00Z" } : undefined;
  };
  const release = () => waiting.splice(0).forEach((resolve) => resolve());
  return { find: findInBatches(listIds, findOne), lists, alone, release, inFlight: () => waiting.length };
}

it("finds asked in one turn share one list per family, each answered with its own document", async () => {
  const service = fake(["a", "b", "c", "x"]);
  const found = await Promise.all([service.find(cohorts, "a"), service.find(cohorts, "b"), service.find(outcomes, "x"), service.find(cohorts, "c"), service.find(cohorts, "a")]);
  expect(found.map((doc) => doc?.id)).toEqual(["a", "b", "x", "c", "a"]);
  expect(service.lists).toEqual([{ family: "cohorts", ids: ["a", "b", "c"] }, { family: "outcomes", ids: ["x"] }]);
  expect(service.alone).toEqual([]);
});

it("an id the list leaves out is asked alone: archived resources are found, gone ones are undefined", async () => {
  const service = fake(["a"]);
  const found = await Promise.all([service.find(cohorts, "a"), service.find(cohorts, "archived-1"), service.find(cohorts, "gone")]);
  expect(found).toEqual([{ id: "a", name: "n-a" }, { id: "archived-1", archived_at: "2026-01-01T00:00:00Z" }, undefined]);
  expect(service.alone.sort()).toEqual(["archived-1", "gone"]);
});

it("a list refused as a bad request asks each id alone; any other failure is every find's", async () => {
  const refused = new AudienceApiError({ method: "GET", path: "/cohorts", attempts: 1 }, 400, { code: "VALIDATION_FAILED", note: "ids[1]: must be a uuid" });
  const badRequest = fake([], { fail: refused });
  expect(await Promise.all([badRequest.find(cohorts, "archived-2"), badRequest.find(cohorts, "not-a-uuid")])).toEqual([{ id: "archived-2", archived_at: "2026-01-01T00:00:00Z" }, undefined]);
  expect(badRequest.alone.sort()).toEqual(["archived-2", "not-a-uuid"]);

  const down = new ServerError({ method: "GET", path: "/cohorts", attempts: 11 }, 503, { code: "INTERNAL_SERVER_ERROR", note: "down" });
  const failing = fake(["a"], { fail: down });
  const results = await Promise.allSettled([failing.find(cohorts, "a"), failing.find(cohorts, "b")]);
  expect(results).toEqual([{ status: "rejected", reason: down }, { status: "rejected", reason: down }]);
  expect(failing.alone).toEqual([]);
});

it(`keeps at most ${LISTS_IN_FLIGHT} lists of a family in flight; finds asked meanwhile go together in the next, 100 ids at most`, async () => {
  const ids = Array.from({ length: 260 }, (_, i) => `id-${i}`);
  const service = fake(ids, { hold: true });
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const pending: Promise<Props | undefined>[] = [];
  for (const id of ids.slice(0, 3)) {
    pending.push(service.find(cohorts, id)); // one turn each: the first two lists take one id each
    await turn();
  }
  for (const id of ids.slice(3)) pending.push(service.find(cohorts, id));
  await turn();
  expect(service.lists.map((l) => l.ids.length)).toEqual([1, 1]);
  expect(service.inFlight()).toBe(LISTS_IN_FLIGHT);
  while (service.inFlight() > 0) {
    service.release();
    await turn();
  }
  expect(service.lists.map((l) => l.ids.length)).toEqual([1, 1, 100, 100, 58]);
  expect((await Promise.all(pending)).map((doc) => doc?.id)).toEqual(ids);
});

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => emulator?.close());
const { takeRequests } = emulatorControl(() => emulator);

it("against the service: one list for the finds of a turn, a GET each for an archived and a deleted resource", async () => {
  const service = clientService({ apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` });
  const made = await Promise.all(["Kept 1", "Kept 2", "Archived", "Deleted"].map((name) => service.create(cohorts, { name })));
  const [kept1, kept2, archived, deleted] = made.map((doc) => String(doc.id));
  await service.archive(cohorts, archived!, {});
  await service.delete(cohorts, deleted!);
  await takeRequests();

  const found = await Promise.all([kept1, kept2, archived, deleted].map((id) => service.find(cohorts, id!)));
  expect(found.map((doc) => doc?.name)).toEqual(["Kept 1", "Kept 2", "Archived", undefined]);
  expect(found[2]?.archived_at).toEqual(expect.any(String));
  const requests = (await takeRequests()).map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""}`);
  expect(requests.sort()).toEqual([
    `GET /cohorts/${archived}`, `GET /cohorts/${deleted}`, `GET /cohorts?ids=${kept1}&ids=${kept2}&ids=${archived}&ids=${deleted}`,
  ].sort());
});
