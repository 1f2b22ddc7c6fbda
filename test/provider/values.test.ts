// Property values as they cross the host's wire: `revealedJson` must give exactly what a JSON round trip of the
// revealed value gives, in one walk.
import { expect, it } from "vitest";
import { makeSecret, revealed, revealedJson, type Value } from "../../provider/protocol/values.ts";

const SHIM = 'exports.handler = () => {\n  return require("x").y("\\u00e9");\n};\n';

const CASES: Record<string, unknown> = {
  scalars: { s: "text", n: 1.5, zero: 0, negativeZero: -0, t: true, f: false, nothing: null },
  "numbers JSON cannot write": { nan: NaN, inf: Infinity, ninf: -Infinity, list: [NaN, -0, Infinity] },
  "members JSON leaves out": { u: undefined, fn: () => 1, sym: Symbol("s"), kept: 1, list: [undefined, () => 1, Symbol("s"), 2] },
  secrets: { password: makeSecret("hunter2"), nested: { deep: makeSecret({ a: [makeSecret(1), 2] }) }, list: [makeSecret("x")] },
  strings: { shim: SHIM, unicode: "ünïcødé ✓ 𝄞", lone: "\ud800", quotes: '"\\' },
  "a __proto__ member": JSON.parse('{"__proto__": {"polluted": true}, "b": 1}') as unknown,
  nested: { a: { b: { c: [[], {}, [{ d: null }]] } } },
};

for (const [name, value] of Object.entries(CASES)) {
  it(`${name}: as a JSON round trip of the revealed value`, () => {
    const viaJson = JSON.parse(JSON.stringify(revealed(value as Value))) as unknown;
    const ours = revealedJson(value);
    expect(ours).toStrictEqual(viaJson);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(viaJson));
  });
}

it("a copy: changing it leaves the value as it was", () => {
  const value = { a: { b: [1, { c: 2 }] }, s: makeSecret({ d: 3 }) };
  const copy = revealedJson(value) as { a: { b: [number, { c: number }] }; s: { d: number } };
  copy.a.b[1].c = 99;
  copy.s.d = 99;
  expect(value).toStrictEqual({ a: { b: [1, { c: 2 }] }, s: makeSecret({ d: 3 }) });
});

it("-0 is written 0, as JSON writes it; a __proto__ member stays a member and sets no prototype", () => {
  expect(Object.is((revealedJson({ z: -0 }) as { z: number }).z, 0)).toBe(true);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getPrototypeOf(revealedJson(CASES["a __proto__ member"]))).toBe(Object.prototype);
});
