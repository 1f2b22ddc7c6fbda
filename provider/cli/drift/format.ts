// The report as people and machines read it: text for a terminal, JSON, Markdown for a pull request, GitHub
// Actions annotations on the program lines that declare what drifted.
import { createRequire } from "node:module";
import { relative } from "node:path";
import type Table from "cli-table3";
import { accountLabel, STATUSES, type Change, type Claim, type Report, type ResourceReport, type Status } from "./report.ts";

export const FORMATS = ["text", "json", "markdown", "github"] as const;
export type Format = (typeof FORMATS)[number];

/** Order in which statuses are shown: what needs a person first. */
const SHOWN: Status[] = ["contested", "error", "missing", "drifted", "unknown", "unmanaged", "in_sync"];
const TITLE: Record<Status, string> = { in_sync: "in sync", drifted: "drifted", missing: "missing", error: "error", unknown: "unknown", contested: "contested", unmanaged: "unmanaged" };
const MARK: Record<Status, string> = { in_sync: "=", drifted: "~", missing: "-", error: "!", unknown: "?", contested: "*", unmanaged: "+" };
const COLOR: Record<Status, number> = { in_sync: 2, drifted: 33, missing: 31, error: 31, unknown: 35, contested: 31, unmanaged: 36 };

function value(v: unknown): string {
  return v === undefined ? "(absent)" : JSON.stringify(v);
}

function change(c: Change): string {
  return `${c.path}: ${value(c.expected)} -> ${value(c.actual)}`;
}

function percent(coverage: number | null): string {
  return coverage === null ? "unknown" : `${(coverage * 100).toFixed(1)}%`;
}

function summaryLine(report: Report): string {
  const s = report.summary;
  const counts = STATUSES.map((status) => `${s[status]} ${TITLE[status]}`).join(", ");
  const managed = STATUSES.filter((x) => x !== "unmanaged").reduce((n, x) => n + s[x], 0);
  const failed = s.failed_accounts > 0 ? `; ${s.failed_accounts} account${s.failed_accounts === 1 ? "" : "s"} not read` : "";
  // With nothing read, a coverage would be a ratio of nothing; with nothing found where an account was not read, unknown.
  const coverage = s.coverage === null ? "coverage unknown" : managed + s.unmanaged === 0 ? "nothing managed or found" : `coverage ${percent(s.coverage)} (${managed} managed of ${managed + s.unmanaged})`;
  return `${counts}; ${coverage}${failed}`;
}

function resourceTitle(r: ResourceReport): string {
  return `${r.type} ${r.name}${r.name !== r.id ? ` (${r.id})` : ""}`;
}

/** A contested resource's claim: its stack, its own name where it differs, what its comparison found. */
function claimTitle(c: Claim, r: ResourceReport): string {
  return `${c.stack}${c.name !== r.name ? ` (${c.name})` : ""}: ${TITLE[c.status]}${c.reason ? `: ${c.reason}` : ""}`;
}

/** Text for a terminal; `color` only on a TTY without NO_COLOR. */
export function formatText(report: Report, color: boolean): string {
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const lines: string[] = [];
  for (const account of report.accounts) {
    lines.push(paint(1, `account ${accountLabel(account)} (${account.baseUrl})`));
    if (account.error !== undefined) {
      lines.push(`  ${paint(31, `not read: ${account.error}`)}`, "");
      continue;
    }
    for (const status of SHOWN) {
      const group = account.resources.filter((r) => r.status === status);
      if (group.length === 0) continue;
      lines.push(`  ${paint(COLOR[status], `${TITLE[status]} (${group.length})`)}`);
      for (const r of group) {
        lines.push(`    ${paint(COLOR[status], MARK[status])} ${resourceTitle(r)}${r.reason ? `: ${r.reason}` : ""}`);
        for (const c of r.changes) lines.push(`        ${change(c)}`);
        for (const claim of r.claims ?? []) {
          lines.push(`        ${claimTitle(claim, r)}`);
          for (const c of claim.changes) lines.push(`            ${change(c)}`);
        }
      }
    }
    if (account.resources.length === 0) lines.push("  nothing managed or found");
    lines.push("");
  }
  if (report.accounts.length === 0) lines.push("no audience resources in the given states", "");
  lines.push(summaryLine(report));
  return `${lines.join("\n")}\n`;
}

function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/**
 * A table cell's code span: fenced by more backticks than the text holds (with a space inside the fence, which
 * CommonMark strips, where the text has any), its pipes escaped as GFM tables need even in code; a backslash in code
 * is a backslash.
 */
function codeCell(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ")}${pad}${fence}`;
}

/** cli-table3, loaded by the one format that draws a table: a scan's start-up spends nothing on it. */
const markdownTableClass = () => createRequire(import.meta.url)("cli-table3") as typeof Table;

/** A report to paste in a pull request or an issue. */
export function formatMarkdown(report: Report): string {
  const s = report.summary;
  const table = new (markdownTableClass())({ head: [...STATUSES.map((x) => TITLE[x]), "coverage"], style: { head: [], border: [], compact: true }, chars: MARKDOWN_TABLE });
  table.push([...STATUSES.map((x) => String(s[x])), percent(s.coverage)]);
  const lines = ["## Drift report", "", markdownTable(table.toString()), ""];
  for (const account of report.accounts) {
    lines.push(`### Account \`${account.account}\`${account.stacks?.length ? ` of ${account.stacks.map((stack) => `\`${stack}\``).join(", ")}` : ""}`, "");
    if (account.error !== undefined) {
      lines.push(`:x: not read: ${cell(account.error)}`, "");
      continue;
    }
    const notable = account.resources.filter((r) => r.status !== "in_sync");
    const inSync = account.resources.length - notable.length;
    if (notable.length === 0) {
      lines.push(`All ${inSync} managed resources are in sync.`, "");
      continue;
    }
    lines.push("| status | resource | id | changes |", "|---|---|---|---|");
    for (const r of notable) {
      const claims = (r.claims ?? []).flatMap((claim) => [cell(claimTitle(claim, r)), ...claim.changes.map((c) => codeCell(change(c)))]);
      const details = [...r.changes.map((c) => codeCell(change(c))), ...(r.reason ? [cell(r.reason)] : []), ...claims].join("<br>");
      lines.push(`| ${TITLE[r.status]} | ${cell(`${r.type} ${r.name}`)} | \`${r.id}\` | ${details} |`);
    }
    lines.push("", ...(inSync > 0 ? [`${inSync} more in sync.`, ""] : []));
  }
  lines.push(`_${summaryLine(report)}_`);
  return `${lines.join("\n")}\n`;
}

const MARKDOWN_TABLE = {
  top: "", "top-mid": "", "top-left": "", "top-right": "", bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "",
  left: "|", "left-mid": "", mid: "", "mid-mid": "", right: "|", "right-mid": "", middle: "|",
};

/** cli-table3 draws the rows; Markdown needs the separator line under the head. */
function markdownTable(drawn: string): string {
  const [head, ...rows] = drawn.split("\n");
  const columns = (head ?? "").split("|").length - 2;
  return [head, `|${"---|".repeat(columns)}`, ...rows].join("\n");
}

/** GitHub's workflow-command escaping: data, then property values. */
const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

/** `::warning file=...,line=...::` per finding, on the declaring line when the state records it. */
export function formatGithub(report: Report, workspace: string): string {
  const lines: string[] = [];
  const annotate = (level: "error" | "warning" | "notice", title: string, message: string, source?: ResourceReport["source"]) => {
    const where = source ? `file=${escapeProperty(relative(workspace, source.file))},line=${source.line},col=${source.column},` : "";
    lines.push(`::${level} ${where}title=${escapeProperty(title)}::${escapeData(message)}`);
  };
  for (const account of report.accounts) {
    if (account.error !== undefined) {
      annotate("error", `drift: account ${accountLabel(account)} not read`, account.error);
      continue;
    }
    for (const r of account.resources) {
      if (r.status === "in_sync") continue;
      const claims = (r.claims ?? []).flatMap((claim) => [claimTitle(claim, r), ...claim.changes.map((c) => `  ${change(c)}`)]);
      const details = [...r.changes.map(change), ...(r.reason ? [r.reason] : []), ...claims].join("\n");
      const level = r.status === "error" || r.status === "missing" || r.status === "contested" ? "error" : r.status === "unmanaged" ? "notice" : "warning";
      // A contested resource once, on the first of its declaring lines the states record.
      const source = r.source ?? r.claims?.find((claim) => claim.source)?.source;
      annotate(level, `drift: ${r.type} ${r.name} ${TITLE[r.status]} (account ${accountLabel(account)})`, details || TITLE[r.status], source);
    }
  }
  lines.push(summaryLine(report));
  return `${lines.join("\n")}\n`;
}

export function formatJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function render(report: Report, format: Format, options: { color: boolean; workspace: string }): string {
  switch (format) {
    case "json": return formatJson(report);
    case "markdown": return formatMarkdown(report);
    case "github": return formatGithub(report, options.workspace);
    default: return formatText(report, options.color);
  }
}
