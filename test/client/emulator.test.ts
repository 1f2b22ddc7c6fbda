// The client against the emulator over real HTTP: the wire forms the two sides agree on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import {
  AudienceClient, InvalidAuthorizationError, NotFoundError, ValidationFailedError, mergePatch,
} from "pulumi-audience/sdk/client";

let emulator: RunningEmulator;
let client: AudienceClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = new AudienceClient({ apiKey: emulator.apiKey, baseUrl: emulator.url, retry: { maxRetries: 0 } });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
});

describe("client against the emulator", () => {
  it("creates, reads, lists by ids, patches, archives and deletes a scope", async () => {
    const [a, b] = [await client.create("cohorts", { name: "Buyers" }), await client.create("cohorts", { name: "Lapsed" })];
    const body = {
      name: "Buyers pipeline",
      population: { cohort_ids: [a.id], exclusion_cohort_ids: [b.id] },
      payload: { cohort_ids: [a.id] },
      preview: true,
    };
    const created = await client.create("scopes", body);
    expect(created).toMatchObject({ ...body, resource_type: "scopes" });
    expect(await client.get("scopes", created.id)).toMatchObject({ id: created.id, name: "Buyers pipeline" });

    const cohorts = await client.list("cohorts", { ids: [b.id, a.id] });
    expect(cohorts.map((c) => c.id)).toEqual([b.id, a.id]);

    // Dropping the exclusion travels as `null` in a merge patch and clears it on the service.
    const patch = mergePatch(body, { ...body, name: "Loyal buyers", population: { cohort_ids: [a.id] } });
    expect(patch).toEqual({ name: "Loyal buyers", population: { exclusion_cohort_ids: null } });
    const updated = await client.update("scopes", created.id, patch as Record<string, unknown>);
    expect(updated.name).toBe("Loyal buyers");
    expect(updated.population).toEqual({ cohort_ids: [a.id] });

    await client.archive("scopes", created.id);
    expect((await client.get("scopes", created.id)).archived_at).toEqual(expect.any(String));
    await client.unarchive("scopes", created.id);
    await client.forceUpdate("scopes", created.id);
    await client.delete("scopes", created.id);
    const gone = await client.get("scopes", created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone).toMatchObject({ status: 404, code: "NOT_FOUND", errorId: expect.any(String) });
  });

  it("reads the service's validation errors with their paths", async () => {
    const cohort = await client.create("cohorts", { name: "Buyers" });
    const scope = await client.create("scopes", {
      name: "S", population: { cohort_ids: [cohort.id] }, payload: { cohort_ids: [cohort.id] }, preview: true,
    });
    const error = await client.update("scopes", scope.id, { population: { cohort_ids: ["nope"] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).validationErrors).toContainEqual(
      expect.objectContaining({ path: "population.cohort_ids[0]" }),
    );
    expect((error as Error).message).toMatch(new RegExp(`^PATCH /scopes/${scope.id}: 400 VALIDATION_FAILED: population\\.cohort_ids\\[0\\]: `));
  });

  it("a wrong key is an authentication error that does not repeat the key", async () => {
    const wrong = new AudienceClient({ apiKey: "sk_wrong_key_123456", baseUrl: `${emulator.url}/v1/` });
    try {
      const error = await wrong.list("scopes").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidAuthorizationError);
      expect(JSON.stringify(error) + String((error as Error).message)).not.toContain("sk_wrong_key_123456");
    } finally {
      await wrong.close();
    }
  });
});
