// Modules import one another without a cycle. No module of ours takes part in a cycle of value imports (those run
// when a module loads, so a cycle makes the order of evaluation decide what a module sees). The sdk's, the
// emulator's and the engine's modules form no cycle even counting imports of types: each room reads from the ground
// floor up (the engine's: resource-calls.ts and plugin-launch.ts, which name no host). The
// emulator's core knows the families through the types of its ground floor (model.ts) and the registry handed to
// it (registry.ts), never by naming what is built on it.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(".");
const PACKAGE = "pulumi-audience";

/** The package's own entry points (`pulumi-audience/sdk/contract`) by import name, as their sources. */
const selfReferences = new Map<string, string>(Object.entries(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports as Record<string, unknown>)
  .flatMap(([subpath, target]) => {
    const source = typeof target === "object" && target !== null ? (target as { source?: string }).source : undefined;
    return source === undefined ? [] : [[`${PACKAGE}${subpath.slice(1)}`, join(ROOT, source)] as [string, string]];
  }));

/**
 * The modules of ours a file imports: relative paths and the package's own names. With `types`, imports of types
 * only (`import type`, `import { type X }`, `export type`, `import("./x.ts").X`) count too; without, they are left out.
 */
export function imports(file: string, source: string, types = false): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const add = (specifier: ts.Node | undefined) => {
    if (specifier !== undefined && ts.isLiteralTypeNode(specifier)) specifier = specifier.literal;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) return;
    const text = specifier.text;
    if (text.startsWith(".")) found.push(resolve(dirname(file), text));
    else if (selfReferences.has(text)) found.push(selfReferences.get(text)!);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly = clause !== undefined && (clause.isTypeOnly
        || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
          && bindings.elements.every((e) => e.isTypeOnly)));
      if (types || !typeOnly) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      if (types || !typeOnly) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    } else if (types && ts.isImportTypeNode(node)) {
      add(node.argument);
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
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : sourceFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** The cycles among the modules under `dirs` (relative to the repository), as repository paths. */
function cyclesUnder(dirs: string[], types: boolean): string[][] {
  const graph = new Map(dirs.flatMap((d) => sourceFiles(join(ROOT, d))).map((file) => [file, imports(file, readFileSync(file, "utf8"), types)]));
  expect(graph.size).toBeGreaterThan(dirs.length * 2);
  return cycles(graph).map((c) => c.map((f) => relative(ROOT, f)));
}

describe("the import cycle check", () => {
  const graph = (sources: Record<string, string>, types = false) =>
    new Map(Object.entries(sources).map(([file, source]) => [resolve(file), imports(resolve(file), source, types)]));
  const named = (found: string[][]) => found.map((c) => c.map((f) => relative(ROOT, f)));

  it("finds a cycle through value imports, re-exports and dynamic imports", () => {
    expect(named(cycles(graph({
      "a.ts": `import { b } from "./b.ts";`,
      "b.ts": `export { c } from "./c.ts";`,
      "c.ts": `const a = await import("./a.ts");`,
    })))).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(cycles(graph({ "a.ts": `import { type X, y } from "./b.ts";`, "b.ts": `import "./a.ts";` }))).toHaveLength(1);
  });

  it("follows the package's own names to their sources", () => {
    expect(named(cycles(graph({
      "sdk/contract/index.ts": `import { x } from "pulumi-audience/sdk/client";`,
      "sdk/client/index.ts": `import { y } from "pulumi-audience/sdk/contract";`,
    })))).toEqual([["sdk/client/index.ts", "sdk/contract/index.ts"]]);
  });

  it("leaves out imports of types only, unless asked to count them", () => {
    const sources = {
      "a.ts": `import { b } from "./b.ts";`,
      "b.ts": `import type { A } from "./a.ts"; import { type B } from "./a.ts"; export type { C } from "./a.ts"; let x: import("./a.ts").A;`,
    };
    expect(cycles(graph(sources))).toEqual([]);
    expect(cycles(graph(sources, true))).toHaveLength(1);
    for (const typeImport of [`import type { A } from "./a.ts";`, `export type { C } from "./a.ts";`, `let x: import("./a.ts").A;`]) {
      expect(cycles(graph({ "a.ts": `import { b } from "./b.ts";`, "b.ts": typeImport }, true)), typeImport).toHaveLength(1);
    }
  });
});

describe("the project's modules", () => {
  it("import one another's values without a cycle", () => {
    expect(cyclesUnder(["sdk", "provider", "emulator", "policy", "bench", "scripts", "examples", "test"], false)).toEqual([]);
  });

  it("of the sdk, of the emulator and of the engine import one another without a cycle, types counted", () => {
    expect(cyclesUnder(["sdk"], true)).toEqual([]);
    expect(cyclesUnder(["emulator"], true)).toEqual([]);
    expect(cyclesUnder(["provider/engine"], true)).toEqual([]);
  });

  it("generated (in the generated/ folder of their room) are in no cycle with hand-written ones, types counted", () => {
    const generated = sourceFiles(join(ROOT, "provider")).filter((f) => f.includes("/generated/"));
    expect(generated.length).toBeGreaterThanOrEqual(4);
    expect(cyclesUnder(["sdk", "provider"], true).filter((c) => c.some((f) => f.includes("/generated/")))).toEqual([]);
  });
});
