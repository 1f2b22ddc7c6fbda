// A create whose answer is lost (connection reset after the service acted, a 503) is resolved by the provider
// itself, in the lifecycle the hosts wire: it looks for what it made before sending the create again, and
// never sends it again when that look fails.
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { FaultRuleInput } from "pulumi-audience/emulator";
import { passTime } from "../clock.ts";
import { HostError, startWorld, type World } from "./harness.ts";

let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world?.close());
beforeEach(async () => {
  await world.control.setFaults([]);
});

const cohortBody = (name: string, minCount = 100) => ({ name, stream_name: "transactions", min_count: minCount });
const cohort = (name: string) => world.inputs("cohorts", { name, streamName: "transactions", minCount: 100 });
const named = async (name: string) => ((await world.api("GET", "/cohorts")) as { id: string; name: string }[]).filter((c) => c.name === name);
const faults = (...rules: FaultRuleInput[]) => world.control.setFaults(rules);
const posts = (name: string) => world.proxy.requests.filter((r) => r.method === "POST" && r.path === "/cohorts" && (r.body as { name?: string })?.name === name).length;

it("a create whose connection was reset after the service made it records the one it made, and says so", async () => {
  await faults({ method: "POST", path: "/cohorts", reset: "after", count: 1 });
  const made = await world.host.create(cohort("Reset after create"));
  const live = await named("Reset after create");
  expect(live.map((c) => c.id)).toEqual([made.id]);
  expect(posts("Reset after create")).toBe(1);
  expect(world.host.warnings().join("\n")).toContain(`Cohort "Reset after create": the create's answer was lost`);
  expect(world.host.warnings().join("\n")).toContain(`${made.id}, made by it, is recorded as the created resource`);
});

it("a create lost before the service acted is sent again once nothing is found", async () => {
  await faults({ method: "POST", path: "/cohorts", reset: "before", count: 1 });
  const made = await world.host.create(cohort("Reset before create"));
  expect((await named("Reset before create")).map((c) => c.id)).toEqual([made.id]);
  expect(posts("Reset before create")).toBe(2);
});

it("a create answered 503 is looked for, then sent again", async () => {
  await faults({ method: "POST", path: "/cohorts", status: 503, count: 1 });
  const made = await world.host.create(cohort("Unavailable create"));
  expect((await named("Unavailable create")).map((c) => c.id)).toEqual([made.id]);
  expect(posts("Unavailable create")).toBe(2);
  const looks = world.proxy.requests.filter((r) => r.method === "GET" && r.path === "/cohorts");
  expect(looks.length).toBeGreaterThan(0);
});

it("several matching resources made since the create began fail it, naming each and how to adopt one", async () => {
  // While the create waits, two identical cohorts appear; then it is processed and its answer lost.
  await faults({ method: "POST", path: "/cohorts", reset: "after", latency_ms: 600, count: 1 });
  const create = world.host.create(cohort("Twice made")).then(() => undefined, (e: unknown) => e);
  await new Promise((r) => setTimeout(r, 150));
  await world.api("POST", "/cohorts", cohortBody("Twice made"));
  await world.api("POST", "/cohorts", cohortBody("Twice made"));
  const error = await create;
  expect(error).toBeInstanceOf(HostError);
  const ids = (await named("Twice made")).map((c) => c.id);
  expect(ids).toHaveLength(3);
  for (const id of ids) expect((error as Error).message).toContain(id);
  expect((error as Error).message).toMatch(/3 resources made since it began match it: .*Set adoptId to the one this program manages, then run again; the others may be another stack's or program's/);
});

it("one of its name and configuration made just before the create began (another stack's) is never taken as made by it", async () => {
  const theirs = (await world.api("POST", "/cohorts", cohortBody("Twin stacks"))) as { id: string };
  passTime(2_000); // within the slack the service's clock is allowed: made before, by this machine's clock
  // Lost before the service acted: nothing made, and the other stack's cohort matches.
  await faults({ method: "POST", path: "/cohorts", reset: "before", count: 1 });
  const error = await world.host.create(cohort("Twin stacks")).then(() => undefined, (e: unknown) => e);
  expect((error as Error).message).toContain(`Cohort "Twin stacks": the create's answer was lost (`);
  expect((error as Error).message).toContain(`; ${theirs.id} matches its name and configuration but was made before it began (by this machine's clock): another stack's or program's, `
    + "or this create's if the service's clock runs behind. Nothing is recorded: set adoptId to the one that is this create's, or run again to create it if none is");
  expect(posts("Twin stacks")).toBe(1);
  // Lost after the service acted: the one made since it began is its own; the other stack's stays theirs.
  await faults({ method: "POST", path: "/cohorts", reset: "after", count: 1 });
  const made = await world.host.create(cohort("Twin stacks"));
  expect(made.id).not.toBe(theirs.id);
  expect((await named("Twin stacks")).map((c) => c.id).sort()).toEqual([theirs.id, made.id].sort());
});

it("a look ignores resources of the same name with another configuration or made before the create", async () => {
  const older = (await world.api("POST", "/cohorts", cohortBody("Lookalike"))) as { id: string };
  passTime(5_100); // older than the service's clock may lag ours
  const other = (await world.api("POST", "/cohorts", cohortBody("Lookalike", 5))) as { id: string };
  await faults({ method: "POST", path: "/cohorts", reset: "after", count: 1 });
  const made = await world.host.create(cohort("Lookalike"));
  expect(made.id).not.toBe(older.id);
  expect(made.id).not.toBe(other.id);
  expect((await named("Lookalike")).map((c) => c.id).sort()).toEqual([older.id, other.id, made.id].sort());
  expect(world.host.warnings().join("\n")).toContain(`${made.id}, made by it, is recorded as the created resource`);
});

it("a look that fails is made again before the outcome is given up (the Pulumi CLI drops a failed create from the state)", async () => {
  // The first look fails (a 500, which the client does not retry); the next finds what the create made.
  await faults({ method: "POST", path: "/cohorts", reset: "after", count: 1 }, { method: "GET", path: "/cohorts", status: 500, count: 1 });
  const made = await world.host.create(cohort("Looked again"));
  expect(posts("Looked again")).toBe(1);
  expect((await named("Looked again")).map((c) => c.id)).toEqual([made.id]);
  expect(world.host.warnings().join("\n")).toContain(`${made.id}, made by it, is recorded as the created resource`);
});

it("a create whose look fails too is not sent again: its outcome stays unknown, naming both failures", async () => {
  await faults({ method: "POST", path: "/cohorts", reset: "after", count: 1 }, { method: "GET", path: "/cohorts", status: 500 });
  const error = await world.host.create(cohort("Look failed")).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(HostError);
  expect((error as Error).message).toMatch(/outcome unknown: Cohort "Look failed": the create's answer was lost \(POST \/cohorts: connection failed.*\) and the look for what it made failed too \(GET \/cohorts: 500/);
  // What is true under both engines, and what a Pulumi user (whose engine drops a failed create) runs to find it.
  expect((error as Error).message).toContain("so it may have been made. `audience run` keeps the create pending and looks again before creating; "
    + "`pulumi` records no failed create, so before its next up, run `pulumi stack export --file stack.json && npx audience drift stack.json` in the program's folder");
  expect(posts("Look failed")).toBe(1);
  await world.control.setFaults([]);
  expect(await named("Look failed")).toHaveLength(1);
});

it("a create refused every time, each look finding nothing made, says one may still land and what to do", async () => {
  await faults({ method: "POST", path: "/cohorts", status: 500 });
  const error = await world.host.create(cohort("Never made")).then(() => undefined, (e: unknown) => e);
  await world.control.setFaults([]);
  expect((error as Error).message).toMatch(/^outcome unknown: Cohort "Never made": \d+ creates failed \(last: POST \/cohorts: 500 .*\); a look after each found nothing made yet, but one may still land\. `audience run` keeps the create pending/);
  expect(await named("Never made")).toEqual([]);
});

it("an update or delete whose outcome is unknown says the next run sends it again, which changes nothing if it took effect", async () => {
  const made = await world.host.create(cohort("Deleted twice"));
  await faults({ method: "DELETE", path: "/cohorts/*", status: 500 });
  const error = await world.host.delete(made.id, made.properties).then(() => undefined, (e: unknown) => e);
  await world.control.setFaults([]);
  expect((error as Error).message).toMatch(new RegExp(`^outcome unknown: the delete of Cohort ${made.id}: DELETE /cohorts/${made.id}: 500 .*; the next run sends it again, which changes nothing if it took effect$`));
  await world.host.delete(made.id, made.properties);
  expect(await named("Deleted twice")).toEqual([]);
});
