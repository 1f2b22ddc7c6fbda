// Streams a target's table as CSV: rows are produced, quoted and (optionally) compressed one at a time, so a
// million-row delivery never sits whole in memory.
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { stringify } from "csv-stringify";
import { LOCATION_DISTANCE } from "./names.ts";
import { cellText, type Table } from "./target.ts";

export interface CsvOptions {
  delimiter?: string;
  gzip?: boolean;
  quote_all?: boolean;
}

/** The CSV options of a target's `options` (hosted_csv, s3_csv...). */
export function csvOptionsOf(options: Record<string, unknown> | undefined): CsvOptions {
  const delimiter = typeof options?.delimiter === "string" && options.delimiter.length > 0 ? options.delimiter : ",";
  return { delimiter, gzip: options?.gzip === true, quote_all: options?.quote_all === true };
}

export interface DeliveryCount {
  /** Data rows written. */
  rows: number;
  /** Rows carrying a nearest location (billed as people_with_nearest_location). */
  located: number;
}

/** CSV bytes of a table; `onDone` receives what was delivered once the last row is written. */
export function csvStream(table: Table, options: CsvOptions = {}, onDone?: (count: DeliveryCount) => void): Readable {
  const distance = table.columns.findIndex((c) => c.startsWith(LOCATION_DISTANCE));
  const count: DeliveryCount = { rows: 0, located: 0 };
  const source = Readable.from((function* () {
    for (const row of table.rows()) {
      count.rows++;
      if (distance >= 0 && typeof row[distance] === "number") count.located++;
      yield row.map(cellText);
    }
    onDone?.(count);
  })(), { objectMode: true, highWaterMark: 256 });
  const csv = stringify({
    header: true, columns: table.columns, delimiter: options.delimiter ?? ",",
    quoted: options.quote_all === true, quoted_empty: options.quote_all === true,
  });
  const stages: (Readable | Transform)[] = [source, csv];
  if (options.gzip) stages.push(createGzip());
  const out = stages.reduce((from, to) => from.pipe(to as Transform)) as Readable;
  // An error anywhere ends the whole chain rather than leaving a half-piped stream behind.
  for (const stage of stages) stage.on("error", (error) => out.destroy(error));
  return out;
}

/** Writes a table's CSV to a destination (a file, a response), resolving with what was delivered. */
export async function writeCsv(table: Table, destination: Writable, options: CsvOptions = {}): Promise<DeliveryCount> {
  let count: DeliveryCount = { rows: 0, located: 0 };
  await pipeline(csvStream(table, options, (c) => (count = c)), destination);
  return count;
}
