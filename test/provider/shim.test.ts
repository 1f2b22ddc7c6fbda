// A program registers no `__kind`: each family's `__provider` shim names it. The lifecycle a host loads takes the
// family from the shim (and check records it as `__kind`, as programs of earlier versions registered it), and the
// Pulumi host, which configures one provider per shim text, configures the one installed provider with the same
// settings again without dropping its clients or its account checks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorControl, startEmulator, type RunningEmulator } from "pulumi-audience/emulator";
import { hostedLifecycle } from "../../provider/runtime/lifecycle/hosted.ts";
import type { Settings } from "../../provider/runtime/lifecycle/settings.ts";
import { registrations } from "../../provider/runtime/generated/registrations.ts";
import { EARLIER_PROVIDER_MODULES, familyNamed, isPackageShim, providerModule, shimFamily } from "../../provider/runtime/resources/shim.ts";

describe("each family's shim", () => {
  it("names its family, and no other text does", () => {
    for (const collection of Object.keys(registrations)) {
      const shim = providerModule(collection);
      expect(shimFamily(shim)).toBe(collection);
      expect(isPackageShim(shim)).toBe(true);
      expect(familyNamed({ name: "x", __provider: shim })).toBe(collection);
    }
    const cohorts = providerModule("cohorts");
    for (const changed of [`${cohorts}\n`, `// edited\n${cohorts}`, cohorts.replace("dynamicProvider(dir)", "dynamicProvider(dir, 1)"), cohorts.replace('"cohorts"', '"Cohorts"')]) {
      expect(shimFamily(changed)).toBeUndefined();
      expect(isPackageShim(changed)).toBe(false);
    }
    // Earlier shims name no family: the resources that carry one carry `__kind` too.
    for (const earlier of EARLIER_PROVIDER_MODULES) {
      expect(isPackageShim(earlier)).toBe(true);
      expect(shimFamily(earlier)).toBeUndefined();
    }
    expect(familyNamed({ __kind: "scopes", __provider: cohorts })).toBe("scopes");
    expect(familyNamed({ __provider: "exports.handler = () => ({});" })).toBeUndefined();
  });
});

describe("the hosted lifecycle", { timeout: 30_000 }, () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => emulator?.close());

  const settings = (): Settings => ({ default: { apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` }, accounts: {} });
  const keyChecks = async () => (await emulatorControl(emulator.url).requests("?path=/accounts/current")).length;

  it("takes the family from the shim, records it as `__kind`, and makes the resource", async () => {
    const { lifecycle } = hostedLifecycle({ settings: settings(), checkAccounts: false });
    const shim = providerModule("cohorts");
    const { inputs, failures } = await lifecycle.check({}, { name: "Named by its shim", __provider: shim });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ __kind: "cohorts", __provider: shim, name: "Named by its shim" });
    const made = await lifecycle.create({ name: "Named by its shim", __provider: shim });
    expect(made.outs).toMatchObject({ __kind: "cohorts", name: "Named by its shim" });
    expect((await lifecycle.read(made.id, { __provider: shim })).props).toMatchObject({ __kind: "cohorts", name: "Named by its shim" });
    await lifecycle.delete(made.id, { __provider: shim });
    expect((await lifecycle.read(made.id, { __provider: shim })).id).toBeFalsy();
  });

  it("keeps its account checks when configured again with the same settings, and drops them for others", async () => {
    const hosted = hostedLifecycle({ settings: settings(), checkAccounts: true });
    const check = () => hosted.lifecycle.check({}, { name: "Checked", __provider: providerModule("cohorts") });
    const before = await keyChecks();
    await check();
    expect(await keyChecks()).toBe(before + 1);
    hosted.configure(settings()); // a second family's shim: equal settings
    await check();
    expect(await keyChecks()).toBe(before + 1);
    hosted.configure({ ...settings(), accounts: { other: { apiKey: emulator.apiKey, baseUrl: `${emulator.url}/v1` } } });
    await check();
    expect(await keyChecks()).toBe(before + 2);
  });
});
