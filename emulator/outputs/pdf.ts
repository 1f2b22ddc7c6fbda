// A printable report of a target analysis, as a real PDF document.
import PDFDocument from "pdfkit";
import { docs, obj, type Doc } from "../world/resources.ts";

/** Renders a target analysis (from `targetAnalysis`) to PDF bytes. */
export function targetAnalysisPdf(analysis: Doc, title: string): Promise<Buffer> {
  const pdf = new PDFDocument({ size: "LETTER", margin: 50, info: { Title: `Target analysis: ${title}` } });
  // Fixed dates keep the same analysis rendering to the same bytes.
  pdf.info.CreationDate = new Date(0);
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  pdf.fontSize(20).text(`Target analysis: ${title}`);
  pdf.moveDown(0.5).fontSize(11)
    .text(`Target ${String(analysis.target_id)} of scope ${String(analysis.scope_id)}`)
    .text(`Individuals: ${String(analysis.individuals_count)}    Residences: ${String(analysis.residences_count)}`);
  const section = (heading: string, rows: [string, string][]) => {
    pdf.moveDown(1).fontSize(14).text(heading).fontSize(10);
    for (const [label, value] of rows) pdf.text(`${label}: ${value}`, { indent: 12 });
  };
  const describe = (d: Doc): [string, string][] => [
    ...docs(d.values).map((v) => [String(v.value), String(v.count)] as [string, string]),
    ...docs(d.bins).map((b) => [`${String(b.min)} to ${String(b.max)}`, String(b.count)] as [string, string]),
  ];
  for (const t of docs(analysis.traits)) section(`Trait ${String(t.trait_name)}`, describe(t));
  for (const a of docs(analysis.attributes)) section(`Attribute ${String(a.attribute_name)}`, describe(a));
  const geography = obj(analysis.geography) ?? {};
  section("By state", docs(geography.state).map((s) => [String(s.value), String(s.count)]));
  section("By postcode (top 20)", docs(geography.postcode).slice(0, 20).map((s) => [String(s.value), String(s.count)]));
  pdf.end();
  return done;
}
