// The emulator's modules import one another without a cycle: the core (store, index, builds, app) is handed its
// families instead of importing them. Imports of types only are erased before running and may point back.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve("emulator");

/** The relative modules a file imports for their values (type-only imports and `import()` types left out). */
export function valueImports(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const add = (specifier: ts.Expression | undefined) => {
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) found.push(resolve(dirname(file), specifier.text));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly = clause !== undefined && (clause.isTypeOnly
        || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
          && bindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(parsed);
  return found;
}

/** The import cycles of a graph: each strongly connected component of more than one module, or one importing itself. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) out.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the import cycle check", () => {
  const graph = (sources: Record<string, string>) =>
    new Map(Object.entries(sources).map(([file, source]) => [resolve(file), valueImports(resolve(file), source)]));

  it("finds a cycle through value imports, re-exports and dynamic imports", () => {
    expect(cycles(graph({
      "a.ts": `import { b } from "./b.ts";`,
      "b.ts": `export { c } from "./c.ts";`,
      "c.ts": `const a = await import("./a.ts");`,
    })).map((c) => c.map((f) => relative(process.cwd(), f)))).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(cycles(graph({ "a.ts": `import { type X, y } from "./b.ts";`, "b.ts": `import "./a.ts";` }))).toHaveLength(1);
  });

  it("leaves out imports of types only", () => {
    expect(cycles(graph({
      "a.ts": `import { b } from "./b.ts";`,
      "b.ts": `import type { A } from "./a.ts"; import { type B } from "./a.ts"; export type { C } from "./a.ts"; let x: import("./a.ts").A;`,
    }))).toEqual([]);
  });
});

describe("emulator/", () => {
  it("has no import cycle beyond imports of types", () => {
    const graph = new Map(sourceFiles(ROOT).map((file) => [file, valueImports(file, readFileSync(file, "utf8"))]));
    expect(graph.size).toBeGreaterThan(40);
    expect(cycles(graph).map((c) => c.map((f) => relative(ROOT, f)))).toEqual([]);
  });
});
