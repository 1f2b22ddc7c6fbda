// Diff: what differs between recorded outputs and declared inputs, and what of it forces a replacement.
import type * as pulumi from "@pulumi/pulumi";
import { jsonEqual, toWire } from "pulumi-audience/sdk/contract";
import { withAccountMove } from "./account-move.ts";
import { awaitNote, BUILD_PATH, failedBuild, rerunNote, unfinishedBuild } from "./build.ts";
import { CONTROL_KEYS, KIND_KEY, type Controls } from "./controls.ts";
import { REPLACE_ON_CHANGES_KEY } from "../markers.ts";
import type { Environment } from "./environment.ts";
import { ARCHIVED_KEY, archivedAt } from "./outputs.ts";
import { declaredBody, recordedBody, split } from "./parts.ts";
import type { Settings } from "./settings.ts";
import { camelPath, isObject, pathsOverlap, readsAsDeclared, type Props } from "./shape.ts";

/** One changed property path (camelCase) of a diff; `replace` when the change needs a new resource. */
export interface PathChange {
  path: string;
  change: "add" | "update" | "delete";
  replace: boolean;
}

/**
 * Pulumi's dynamic answer; besides, for a replace, the paths that force it (the engine's in-process host shows them).
 * A dynamic provider's answer names no path: a re-run build is said in a warning, which a plan shows.
 */
export async function diff(env: Pick<Environment, "report" | "settings">, id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult & { forcing?: string[] }> {
  const compared = await planned(env.settings(), id, olds, news);
  const { changed, replaces, details } = compared;
  const note = buildNote(news, id, compared);
  if (note !== undefined) env.report?.(note);
  const forcing = details.filter((d) => d.replace).map((d) => d.path);
  return { changes: changed.length > 0 || replaces.length > 0, replaces, deleteBeforeReplace: compared.deleteBeforeReplace, ...(replaces.length > 0 ? { forcing } : {}) };
}

/**
 * What an update plans for a resource, as both faces' diffs answer it: the comparison, with a move to another account
 * made a replacement, refused for a resource the service manages.
 */
export async function planned(settings: Settings, id: string, olds: Props, news: Props): Promise<Awaited<ReturnType<typeof compare>>> {
  const compared = await withAccountMove(settings, olds, news, await compare(olds, news, id));
  refuseManagedChange(olds, news, id, compared);
  refuseUncreatableReplace(olds, news, id, compared);
  return compared;
}

/** A replacement that adopts another resource (`adoptId`): it neither writes the old one nor makes one. */
function adoptsInstead(news: Props, replaces: string[]): boolean {
  return replaces.length > 0 && split(news).controls.adoptId !== undefined;
}

/**
 * A plan that would replace a resource the service makes no more of (a forecast, an atlas: only adopted) fails in
 * the preview: the replacement's create would be refused, after the plan passed.
 */
function refuseUncreatableReplace(olds: Props, news: Props, id: string, { replaces }: { replaces: string[] }): void {
  if (replaces.length === 0) return;
  const { providerFamily } = split(olds);
  const { family } = providerFamily;
  if (family.creatable || providerFamily.create || adoptsInstead(news, replaces)) return;
  throw new Error(`${family.className} ${id} cannot be replaced: the service makes no ${family.className} through the API (one is only adopted), and a change of ${replaces.join(", ")} needs a new one; declare ${replaces.length === 1 ? "it" : "them"} as recorded, or adopt another ${family.className} in a resource of its own (adoptId)`);
}

/**
 * A plan that would change a resource the service manages (adopted or imported before adoption refused it) fails
 * in the preview: the service refuses every change of it (403), which the up would meet.
 */
function refuseManagedChange(olds: Props, news: Props, id: string, { changed, replaces }: { changed: string[]; replaces: string[] }): void {
  if (olds.managed !== true) return;
  // The provider's own controls (adoptId naming it, deletionMode) write nothing.
  const written = [...new Set([...changed, ...replaces])].filter((key) => !(CONTROL_KEYS as readonly string[]).includes(key));
  if (written.length === 0 || adoptsInstead(news, replaces)) return;
  const family = split(olds).providerFamily.family;
  throw new Error(`${family.className} ${id} is managed by the service and read-only: it refuses every change (${written.join(", ")}); declare it as it is, or use it through get${family.className}Output instead (removing it from the program only forgets it)`);
}

/** What a plan says of an update that re-runs or waits for a build, which no property of the diff names. */
export function buildNote(news: Props, id: string, { replaces, failedBuild, unfinishedBuild }: Awaited<ReturnType<typeof compare>>): string | undefined {
  if (replaces.length > 0) return undefined;
  if (failedBuild !== undefined) return rerunNote(split(news), id, failedBuild);
  return unfinishedBuild === undefined ? undefined : awaitNote(split(news), id, unfinishedBuild);
}

/**
 * What differs between recorded outputs and declared inputs (camelCase member names), what forces a replacement,
 * and the same per property path (`options.delimiter`) for hosts that show a detailed diff; and why the last build
 * failed, when the update re-runs it (`build` among the changes).
 */
export async function compare(olds: Props, news: Props, id?: string): Promise<{ changed: string[]; replaces: string[]; details: PathChange[]; deleteBeforeReplace: boolean; failedBuild?: string; unfinishedBuild?: string }> {
  const before = split(olds);
  const after = split(news);
  if (before.providerFamily !== after.providerFamily) return { changed: [KIND_KEY], replaces: [KIND_KEY], details: [{ path: KIND_KEY, change: "update", replace: true }], deleteBeforeReplace: false };
  const family = after.providerFamily.family;
  // Most diffs find outputs that read back as the inputs (one walk); only the others normalize both bodies.
  const same = readsAsDeclared(family.create, toWire(family.response, before.members) as Props, after.members, "literal");
  const old = same ? undefined : recordedBody(family, before.members);
  const now = same ? undefined : declaredBody(family, after.members);
  const changed = new Set<string>();
  const keys = new Set([...Object.keys(isObject(old) ? old : {}), ...Object.keys(isObject(now) ? now : {})]);
  for (const key of keys) {
    if (!jsonEqual(isObject(old) ? old[key] : undefined, isObject(now) ? now[key] : undefined)) changed.add(camelPath(family.create, key));
  }
  const replaces = family.createOnly
    .filter((path) => !jsonEqual(at(old, path), at(now, path)))
    .map((path) => camelPath(family.create, path.split(/[.[]/)[0] ?? path));
  const createOnly = family.createOnly.map((path) => camelPath(family.create, path));
  const details: PathChange[] = changedPaths(old, now).map(({ path, change }) => {
    const camel = camelPath(family.create, path);
    return { path: camel, change, replace: createOnly.some((c) => pathsOverlap(c, camel)) };
  });
  const top = (key: string) => {
    changed.add(key);
    const [old, now] = [before.extras[key] ?? before.controls[key as keyof Controls], after.extras[key] ?? after.controls[key as keyof Controls]];
    // A member neither side declares (an upload's md5Hash) changed in what it stands for.
    details.push({ path: key, change: old === undefined && now === undefined ? "update" : changeOf(old, now), replace: false });
  };
  for (const key of new Set([...Object.keys(before.extras), ...Object.keys(after.extras)])) {
    if (!jsonEqual(before.extras[key], after.extras[key])) top(key);
  }
  let deleteBeforeReplace = family.replaceDeletesFirst;
  if (after.providerFamily.diff) {
    const own = await after.providerFamily.diff({ extras: after.extras, recordedExtras: before.extras, recorded: olds });
    for (const key of own.changed) if (!changed.has(key)) top(key);
    replaces.push(...own.replaces);
    deleteBeforeReplace ||= own.deleteBeforeReplace === true;
  }
  for (const key of CONTROL_KEYS) {
    if (!jsonEqual(before.controls[key], after.controls[key])) top(key);
  }
  if (archivedAt(olds) !== undefined && archivedAt(news) === undefined) {
    changed.add(ARCHIVED_KEY);
    details.push({ path: ARCHIVED_KEY, change: "delete", replace: false });
  }
  // A new adoptId takes over another resource; one naming this very resource (imported, then written) keeps it.
  const adopted = after.controls.adoptId;
  if (adopted !== undefined && adopted !== before.controls.adoptId && adopted !== id) replaces.push("adoptId");
  const rebuild = failedBuild(after, olds);
  const unfinished = rebuild === undefined ? unfinishedBuild(after, olds) : undefined;
  if (rebuild !== undefined || unfinished !== undefined) {
    changed.add(BUILD_PATH);
    details.push({ path: BUILD_PATH, change: "update", replace: false });
  }
  // The dynamic face's replaceOnChanges, which Pulumi cannot match against a dynamic provider's diff.
  for (const detail of details) {
    if (!replacedOnChange(news[REPLACE_ON_CHANGES_KEY], detail.path)) continue;
    detail.replace = true;
    replaces.push(optionSegments(detail.path)[0] ?? detail.path);
  }
  for (const detail of details) if (replaces.includes(detail.path)) detail.replace = true;
  return {
    changed: [...changed], replaces: [...new Set(replaces)], details: uniqueByPath(details), deleteBeforeReplace,
    ...(rebuild === undefined ? {} : { failedBuild: rebuild }), ...(unfinished === undefined ? {} : { unfinishedBuild: unfinished }),
  };
}

/**
 * Whether the dynamic face's replaceOnChanges paths (REPLACE_ON_CHANGES_KEY) take in a change at `path`, as Pulumi
 * matches the option against a native diff: the option's path is the change's or encloses it, `*` any member.
 */
function replacedOnChange(paths: unknown, path: string): boolean {
  if (!Array.isArray(paths)) return false;
  const changed = optionSegments(path);
  return paths.some((option) => {
    if (typeof option !== "string") return false;
    const segments = optionSegments(option);
    return segments.length <= changed.length && segments.every((segment, i) => segment === "*" || segment === changed[i]);
  });
}

/** A property path's members and indices as text: `a["b/c"][0].d` -> `a`, `b/c`, `0`, `d`. */
function optionSegments(path: string): string[] {
  return [...path.matchAll(/\["((?:[^"\\]|\\.)*)"\]|\[([^\]]*)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

function changeOf(old: unknown, now: unknown): PathChange["change"] {
  return old === undefined ? "add" : now === undefined ? "delete" : "update";
}

/** The innermost wire paths where two canonical bodies differ (objects and arrays walked). */
function changedPaths(old: unknown, now: unknown, path = ""): { path: string; change: PathChange["change"] }[] {
  if (jsonEqual(old, now)) return [];
  if (path !== "" && (old === undefined || now === undefined)) return [{ path, change: changeOf(old, now) }];
  if (isObject(old) && isObject(now)) {
    const keys = new Set([...Object.keys(old), ...Object.keys(now)]);
    return [...keys].flatMap((k) => changedPaths(old[k], now[k], path === "" ? k : `${path}.${k}`));
  }
  if (Array.isArray(old) && Array.isArray(now)) {
    return Array.from({ length: Math.max(old.length, now.length) }, (_, i) => changedPaths(old[i], now[i], `${path}[${i}]`)).flat();
  }
  return [{ path, change: "update" }];
}

function uniqueByPath(details: PathChange[]): PathChange[] {
  return [...new Map(details.map((d) => [d.path, d])).values()];
}

/** The member at a dotted wire path (`representation.mode`). */
function at(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split(".")) current = isObject(current) ? current[part] : undefined;
  return current;
}
