// The outputs a program reads from its resources, in both faces: the inputs it gave are registered outputs; every
// other member of the answer is built when first read, from the resource as the engine recorded it, and keeps
// what a registered output has: the value, its secrecy, its unknownness in preview, its dependency on the resource.
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";

function value<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => { resolve(v); return v; }));
}

/** Whether an output is known (false for a value unknown in preview). */
function known(output: pulumi.Output<unknown>): Promise<boolean> {
  return (output as unknown as { isKnown: Promise<boolean> }).isKnown;
}

function secret(output: pulumi.Output<unknown>): Promise<boolean> {
  return (output as unknown as { isSecret: Promise<boolean> }).isSecret;
}

/** The faces, loaded afresh under mocks that answer each resource with its inputs plus `answer`. */
async function underMocks(preview: boolean, answer: Record<string, unknown>) {
  vi.resetModules();
  await pulumi.runtime.setMocks({
    newResource: (args) => ({ id: preview ? undefined : `${args.name}-id`, state: preview ? args.inputs : { ...args.inputs, ...answer } }),
    call: (args) => args.inputs,
  }, "outputs", "dev", preview);
  const dynamicFace = await import("../../provider/runtime/generated/dynamic-face.ts");
  const nativeFace = await import("../../provider/native/generated/native-face.ts");
  return { dynamic: dynamicFace, native: nativeFace };
}

afterEach(() => vi.resetModules());

describe.each(["dynamic", "native"] as const)("the %s face's outputs", (face) => {
  it("are the answered members, read when the program reads them", async () => {
    const audience = (await underMocks(false, { populationCount: 1200, status: "ready", classic: false }))[face];
    const cohort = new audience.Cohort("buyers", { name: "Buyers", streamName: "orders" });
    // Given inputs are the runtime's own outputs; the answer's other members are not pre-declared.
    expect(Object.keys(cohort)).toContain("streamName");
    expect(Object.keys(cohort)).not.toContain("populationCount");
    expect(await value(cohort.name)).toBe("Buyers");
    expect(await value(cohort.populationCount)).toBe(1200);
    expect(await value(cohort.status)).toBe("ready");
    expect(await value(cohort.classic)).toBe(false);
    expect(await value(cohort.residenceCount)).toBeUndefined();
    expect(cohort.populationCount).toBe(cohort.populationCount);
  });

  it("a resource made without arguments registers, for check to name what is required", async () => {
    const audience = (await underMocks(false, { status: "ready" }))[face];
    const Cohort = audience.Cohort as unknown as new (name: string) => InstanceType<typeof audience.Cohort>;
    const cohort = new Cohort("bare");
    expect(await value(cohort.status)).toBe("ready");
  });

  it("a credential written in plain text is warned of under its resource", async () => {
    const audience = (await underMocks(false, {}))[face];
    const runtime = await import("@pulumi/pulumi");
    const warn = vi.spyOn(runtime.log, "warn").mockResolvedValue(undefined);
    const connection = new audience.Connection("plain-pg", { name: "Plain PG", options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" } });
    await value(connection.urn);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringMatching(/options\.password is written in plain text/), connection));
  });

  it("a plain Output of options is warned of for the credentials of its kind only, in a sentence that agrees", async () => {
    const audience = (await underMocks(false, {}))[face];
    const runtime = await import("@pulumi/pulumi");
    const warn = vi.spyOn(runtime.log, "warn").mockResolvedValue(undefined);
    const postgres = new audience.Connection("pg-output", { name: "PG", options: pulumi.output({ type: "postgres" as const, host: "h", port: 5432, database: "d", schema: "s", user: "u", password: "hunter2" }) });
    const snowflake = new audience.Connection("sf-output", { name: "SF", options: pulumi.output({ type: "snowflake" as const, database: "d", user: "u", warehouse: "w", password: "p", privateKey: "k" }) });
    await Promise.all([value(postgres.urn), value(snowflake.urn)]);
    const about = (resource: unknown) => warn.mock.calls.filter(([, on]) => on === resource).map(([message]) => message);
    await vi.waitFor(() => expect([...about(postgres), ...about(snowflake)]).toHaveLength(2));
    expect(warn).toHaveBeenCalledWith('Connection "PG": options.password is written in plain text in the program (or plain config); it is kept secret in state, but pass a secret instead (config.requireSecret or pulumi.secret) to keep it out of the source', postgres);
    expect(warn).toHaveBeenCalledWith('Connection "SF": options.password and options.privateKey are written in plain text in the program (or plain config); they are kept secret in state, but pass a secret instead (config.requireSecret or pulumi.secret) to keep them out of the source', snowflake);
  });

  it("stay secret where the answer holds a credential", async () => {
    const audience = (await underMocks(false, { apiKey: pulumi.secret("key-123") }))[face];
    const account = new audience.Account("brand", { name: "Brand" });
    expect(await secret(account.apiKey)).toBe(true);
    expect(await secret(account.name)).toBe(false);
  });

  it("are unknown in preview until the service answers, and depend on their resource", async () => {
    const audience = (await underMocks(true, {}))[face];
    const cohort = new audience.Cohort("buyers", { name: "Buyers" });
    expect(await known(cohort.populationCount)).toBe(false);
    expect(await known(cohort.name)).toBe(true);
    const resources = await (cohort.populationCount as unknown as { allResources(): Promise<Set<pulumi.Resource>> }).allResources();
    expect(resources.has(cohort)).toBe(true);
  });
});
