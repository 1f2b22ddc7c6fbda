// The two program faces (`pulumi-audience`, `pulumi-audience/native`): generated from the families registry, serving
// the families and lookups the plugin schema serves, and typed so that the compiler picks a union's variant from its
// discriminant (`options.type`, `representation.mode`): right errors, hover docs on the variant's members.
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { families, type FamilyDef } from "pulumi-audience/sdk/contract";
import * as dynamicFace from "../../provider/runtime/generated/dynamic-face.ts";
import * as nativeFace from "../../provider/native/generated/native-face.ts";
import { packageSchema } from "../../provider/plugin/schema.ts";
import { providerFamilies } from "../../provider/runtime/families/index.ts";
import { DYNAMIC_FACE_FILE, dynamicFace as dynamicFaceText, NATIVE_FACE_FILE, nativeFace as nativeFaceText, REGISTRATIONS_FILE, registrationsModule } from "../../provider/runtime/resources/faces-generator.ts";
import { ENUMS_FILE, enumsModule } from "../../provider/plugin/enums-generator.ts";
import { languageService } from "./language-service.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("program faces", () => {
  it("are the ones the registry generates (run `npm run gen:types` after adding or changing a family)", () => {
    expect(readFileSync(DYNAMIC_FACE_FILE, "utf8")).toBe(dynamicFaceText());
    expect(readFileSync(NATIVE_FACE_FILE, "utf8")).toBe(nativeFaceText());
    expect(readFileSync(REGISTRATIONS_FILE, "utf8")).toBe(registrationsModule());
    expect(readFileSync(ENUMS_FILE, "utf8")).toBe(enumsModule());
  });

  it("hold each enum of the schema by the names the schema gives its values, as pulumi import writes them", () => {
    const enums = Object.entries(packageSchema().types).flatMap(([token, spec]) => ("enum" in spec ? [[token.split(":").at(-1)!, spec.enum] as const] : []));
    expect(enums.length).toBeGreaterThan(0);
    for (const face of [dynamicFace, nativeFace] as Record<string, unknown>[]) {
      for (const [name, values] of enums) expect(face[name], name).toEqual(Object.fromEntries(values.map((v) => [v.name, v.value])));
    }
    expect(nativeFace.TargetOptionsType.HostedCsv).toBe("hosted_csv");
    expect(dynamicFace.TargetOptionsType.HostedCsv).toBe("hosted_csv");
  });

  it("serve the classes and lookups the plugin schema serves, in both faces", () => {
    const schema = packageSchema();
    const token = (name: string) => `audience:index:${name}`;
    const exported = (face: Record<string, unknown>) => ({
      classes: Object.keys(face).filter((k) => /^[A-Z]/.test(k) && Object.keys(schema.resources).includes(token(k))).sort(),
      lookups: Object.keys(face).filter((k) => /^get[A-Z]/.test(k) && !k.endsWith("Output")).sort(),
    });
    const served = {
      classes: Object.keys(schema.resources).map((t) => t.replace("audience:index:", "")).sort(),
      lookups: Object.keys(schema.functions).map((t) => t.replace("audience:index:", "")).sort(),
    };
    expect(served.classes).toHaveLength(Object.keys(families).length);
    expect(exported(dynamicFace)).toEqual(served);
    expect(exported(nativeFace)).toEqual(served);
    for (const name of served.lookups) {
      expect(typeof (dynamicFace as Record<string, unknown>)[`${name}Output`]).toBe("function");
      expect(typeof (nativeFace as Record<string, unknown>)[`${name}Output`]).toBe("function");
    }
  });

  it("leave out a lookup only where the family's definition says why", () => {
    const withoutLookup = Object.values(families as Record<string, FamilyDef>).filter((f) => f.noLookup !== undefined).map((f) => f.collection);
    expect(withoutLookup.sort()).toEqual(["insights", "uploads"]);
    // A family the generic lookup cannot read (one per account, or found its own way) must say so.
    for (const providerFamily of Object.values(providerFamilies)) {
      if (providerFamily.family.singleton || providerFamily.find !== undefined) expect(providerFamily.family.noLookup, providerFamily.family.collection).toBeDefined();
    }
  });
});

/** Small programs, one per case, held in memory beside the repository's sources. */
const PROGRAMS: Record<string, (face: string) => string> = {
  valid: (face) => `import * as audience from "${face}";
export const pg = new audience.Connection("pg", {
  name: "PG",
  options: { type: "postgres", host: "db.example.com", port: 5432, database: "d", schema: "s", user: "u", password: "pw" },
});
export const target = new audience.Target("t", { name: "T", scopeId: "s", options: { type: "hosted_csv" }, representation: { mode: "hashed" } });
export const count = audience.getCohortOutput({ name: "Leads" }).apply((cohort) => cohort.populationCount);
`,
  missingPassword: (face) => `import * as audience from "${face}";
new audience.Connection("pg", { name: "PG", options: { type: "postgres", host: "h", port: 5432, database: "d", schema: "s", user: "u" } });
`,
  hostOnHostedCsv: (face) => `import * as audience from "${face}";
new audience.Connection("csv", { name: "CSV", options: { type: "hosted_csv", host: "h" } });
`,
  referenceOnHashed: (face) => `import * as audience from "${face}";
new audience.Target("t", { name: "T", scopeId: "s", options: { type: "hosted_csv" }, representation: { mode: "hashed", reference: { datasetId: "d", columnName: "c" } } });
`,
};
const FACES = { dynamic: "pulumi-audience", native: "pulumi-audience/native" };
const files = new Map(Object.entries(FACES).flatMap(([faceName, face]) =>
  Object.entries(PROGRAMS).map(([caseName, program]) => [path.join(ROOT, "examples", `face-${faceName}-${caseName}.ts`), program(face)] as const)));
const fileOf = (faceName: string, caseName: string) => path.join(ROOT, "examples", `face-${faceName}-${caseName}.ts`);

/** One service for both faces: most of a check is @pulumi/pulumi's and the contract's types, which both faces share. */
let service: ts.LanguageService | undefined;
// The worker runs other files after this one: let the compiler's memory go.
afterAll(() => {
  service?.dispose();
  service = undefined;
});

describe.each(Object.keys(FACES))("the %s face's discriminated unions", (faceName) => {
  const errors = (caseName: string) => service!.getSemanticDiagnostics(fileOf(faceName, caseName))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  /** What an editor shows when hovering `word` (its first occurrence after `after`). */
  const hover = (caseName: string, word: string, after = "") => {
    const text = files.get(fileOf(faceName, caseName))!;
    const info = service!.getQuickInfoAtPosition(fileOf(faceName, caseName), text.indexOf(word, text.indexOf(after)));
    return { signature: ts.displayPartsToString(info?.displayParts), doc: ts.displayPartsToString(info?.documentation) };
  };
  // Type-checking against @pulumi/pulumi's declarations is the slow part: done once, bounded generously.
  beforeAll(() => {
    service ??= languageService(files);
    errors("valid");
  }, 240_000);

  it("accept a valid program and show the chosen variant's docs on hover", () => {
    expect(errors("valid")).toEqual([]);
    expect(hover("valid", "host", "postgres")).toMatchObject({ signature: expect.stringContaining("ConnectionOptionsPostgresArgs.host"), doc: "The server's host name." });
    expect(hover("valid", "password").doc).toMatch(/password/i);
    expect(hover("valid", "populationCount").doc).toBe("People in the cohort, once it has built.");
  });

  it("name the missing member of the variant the discriminant picks", () => {
    const [error, ...more] = errors("missingPassword");
    expect(more).toEqual([]);
    expect(error).toMatch(/Property 'password' is missing/);
    expect(error).toMatch(/ConnectionOptionsPostgresArgs/);
    expect(error).not.toMatch(/Redshift/);
  });

  it("flag a member another variant takes", () => {
    // The variant is named first; the Input wrappers of the whole union follow it.
    expect(errors("hostOnHostedCsv")).toEqual([expect.stringMatching(/'host' does not exist in type 'ConnectionOptionsHostedCsvArgs[ ']/)]);
    expect(errors("referenceOnHashed")).toEqual([expect.stringMatching(/'reference' does not exist in type 'TargetRepresentationHashedArgs[ ']/)]);
  });
});
