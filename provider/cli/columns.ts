// Plain columns, as `pulumi config` and `pulumi stack output` print them: no borders, no colour.
import Table from "cli-table3";

const NO_BORDER = Object.fromEntries(
  ["top", "top-mid", "top-left", "top-right", "bottom", "bottom-mid", "bottom-left", "bottom-right", "left", "left-mid", "mid", "mid-mid", "right", "right-mid"].map((k) => [k, ""]),
);

/** The rows under their headings, columns two spaces apart, each line indented by `indent` spaces. */
export function columns(head: string[], rows: string[][], indent = 0): string {
  const table = new Table({ head, chars: { ...NO_BORDER, middle: "  " }, style: { head: [], border: [], "padding-left": 0, "padding-right": 0 } });
  table.push(...rows);
  return `${table.toString().split("\n").map((line) => `${" ".repeat(indent)}${line.trimEnd()}`).join("\n")}\n`;
}
