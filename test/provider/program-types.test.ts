// The program types users import: generated from the contract, documented member by member (as an editor shows
// them on hover), and accepting exactly what the contract's own types accept.
import { readFileSync } from "node:fs";
import path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collection } from "pulumi-audience/sdk/contract";
import type { Args, Config, PersonaSetExtraArgs, ResourceControls, Result, State, UploadExtraArgs } from "../../provider/runtime/generated/dynamic-face.ts";
import { PROGRAM_TYPES_FILE, programTypes, type UNMATCHED_KEY } from "../../provider/runtime/resources/types-generator.ts";
import { languageService } from "./language-service.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PROGRAM = path.join(ROOT, "examples", "hover-probe.ts");
const PROGRAM_TEXT = `import * as audience from "pulumi-audience";
const stores = new audience.Atlas("stores", {
  name: "Stores",
  options: { type: "hosted_csv", uploadDirectory: "stores" },
  outputToLocations: { latitude: "lat", longitude: "lon" },
});
const buyers = new audience.Cohort("buyers", {
  name: "Buyers",
  streamName: "orders",
  streamConditions: [{ property: "ordered_on", _on_or_after: "2026-01-01" }],
  placeConditions: [],
});
new audience.Scope("leads", { name: "Leads", population: { cohortIds: [buyers.id] }, payload: { location: { atlasIds: [stores.id] } }, preview: true });
`;

// A program with a misspelled tag: TypeScript's message for a union checks the tag against the last variant only.
const MISSPELLED = path.join(ROOT, "examples", "misspelled-probe.ts");
const MISSPELLED_TEXT = `import * as audience from "pulumi-audience";
new audience.Target("t", { name: "T", scopeId: "s", representation: { mode: "identifed" }, options: { type: "hosted_csv" } });
new audience.Target("u", { name: "U", scopeId: "s", representation: { mode: "hashed" }, options: { type: "hostedcsv" } });
`;

describe("program types", () => {
  let service: ts.LanguageService;
  // Type-checking the program with @pulumi/pulumi's declarations is the slow part: done once, bounded generously.
  let diagnostics: string[];
  beforeAll(() => {
    service = languageService(new Map([[PROGRAM, PROGRAM_TEXT], [MISSPELLED, MISSPELLED_TEXT]]), [PROGRAM, MISSPELLED, path.join(ROOT, "provider", "runtime", "generated", "dynamic-face.ts")]);
    diagnostics = service.getSemanticDiagnostics(PROGRAM).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  }, 180_000);
  // The worker runs other files after this one: let the compiler's memory go.
  afterAll(() => service?.dispose());

  /** What an editor shows when hovering the first `word` after `after` in the program. */
  function hover(word: string, after = ""): { signature: string; doc: string; tags: string } {
    const at = PROGRAM_TEXT.indexOf(word, PROGRAM_TEXT.indexOf(after));
    const info = service.getQuickInfoAtPosition(PROGRAM, at);
    return {
      signature: ts.displayPartsToString(info?.displayParts),
      doc: ts.displayPartsToString(info?.documentation),
      tags: (info?.tags ?? []).map((t) => `@${t.name} ${ts.displayPartsToString(t.text)}`).join("\n"),
    };
  }

  it("are the ones the contract generates (run `npm run gen:types` after changing a schema or a doc)", () => {
    expect(readFileSync(PROGRAM_TYPES_FILE, "utf8")).toBe(programTypes());
  });

  it("show each member's doc, rules and allowed operators on hover, with named nested types", () => {
    expect(diagnostics).toEqual([]);
    const conditions = hover("streamConditions");
    expect(conditions.signature).toContain("CohortStreamConditionArgs");
    expect(conditions.doc).toMatch(/_on_or_before.*_on_or_after/);
    expect(hover("_on_or_after").doc).toMatch(/On or after this day \(`YYYY-MM-DD`.*only on date properties/);
    expect(hover("outputToLocations").doc).toMatch(/exactly one group/);
    expect(hover("outputToLocations").signature).toContain("AtlasOutputToLocationsArgs");
    expect(hover("preview").doc).toMatch(/limited number of rows and is not billed/);
  });

  it("name every allowed tag of a union when the one given matches none", () => {
    const misspelled = service.getSemanticDiagnostics(MISSPELLED).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(misspelled).toEqual([
      `Type '"identifed"' is not assignable to type '"identified" | "hashed" | "referenced" | "aggregated"'. Did you mean '"identified"'?`,
      expect.stringMatching(/^Type '"hostedcsv"' is not assignable to type '"hosted_csv" \| "lookup_api" \| "snowflake" \| .*"redshift"'\./),
    ]);
  });

  it("mark create-only members as replacing and deprecated members with their replacement", () => {
    expect(hover("options").doc).toMatch(/Changing `type` replaces the resource\.$/);
    expect(hover("placeConditions").tags).toMatch(/@deprecated Use `locationConditions`/);
  });

  it("document every member of every exported interface", () => {
    const program = service.getProgram();
    const checker = program?.getTypeChecker();
    const index = program?.getSourceFile(path.join(ROOT, "provider", "runtime", "generated", "dynamic-face.ts"));
    if (!checker || !index) throw new Error("no program");
    const moduleSymbol = checker.getSymbolAtLocation(index);
    if (!moduleSymbol) throw new Error("no module symbol");
    const undocumented: string[] = [];
    let interfaces = 0;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & ts.SymbolFlags.Interface)) continue;
      interfaces++;
      for (const property of checker.getDeclaredTypeOfSymbol(symbol).getProperties()) {
        if (ts.displayPartsToString(property.getDocumentationComment(checker)).trim() === "") undocumented.push(`${exported.name}.${property.name}`);
      }
    }
    expect(interfaces).toBeGreaterThan(100);
    expect(undocumented).toEqual([]);
  });
});

// Checked by `tsc` (`npm test` type-checks beside vitest): the generated args take exactly the values the contract's zod
// types take, and a lookup result has the members and value types of the contract's response.
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A union's unmatched variant (types-generator.ts) takes no value: left out.
type Plain<T> = T extends { [UNMATCHED_KEY]: never } ? never : T extends pulumi.OutputInstance<infer U> | Promise<infer U> ? Plain<U>
  : T extends readonly (infer E)[] ? Plain<E>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;
/** Members and value types, leaving out what zod's response types cannot say (which members may be absent or null). */
type Shape<T> = T extends readonly (infer E)[] ? Shape<E>[]
  : T extends object ? { [K in keyof T as [NonNullable<T[K]>] extends [never] ? never : K]-?: Shape<NonNullable<T[K]>> } : T;
type ServiceArgs<C extends Collection> = Plain<Omit<Args<C>, keyof ResourceControls | keyof PersonaSetExtraArgs | keyof UploadExtraArgs>>;
// Webhook endpoints are left out of the result check: zod infers their answered `status` as `undefined`.
type Agree<C extends Collection> = [Mutual<ServiceArgs<C>, Config<C>>, C extends "webhook_endpoints" ? true : Mutual<Shape<Result<C>>, Shape<State<C>>>];
type Disagreeing = { [C in Collection]: Agree<C> extends [true, true] ? never : C }[Collection];
const disagreeing: [Disagreeing] extends [never] ? "none" : `disagreeing: ${Disagreeing}` = "none";

describe("program types and the contract's types", () => {
  it("agree for every family (a disagreement fails the type check, naming the family)", () => {
    expect(disagreeing).toBe("none");
  });
});
