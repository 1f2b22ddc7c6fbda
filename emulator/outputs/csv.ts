// Streams a target's table as CSV: rows are produced, quoted and (optionally) compressed a batch at a time,
// so a million-row delivery never sits whole in memory.
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { stringify } from "csv-stringify/sync";
import { LOCATION_DISTANCE } from "./names.ts";
import { cellText, type Table } from "./target.ts";

/** Rows quoted together; a batch is the most of a delivery held in memory at once. */
export const CSV_BATCH_ROWS = 1000;

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
  const delimiter = options.delimiter ?? ",";
  const quoteAll = options.quote_all === true;
  const quote = (records: string[][]) => stringify(records, { delimiter, quoted: quoteAll, quoted_empty: quoteAll });
  // Rows with nothing to quote are joined directly (byte for byte what the library writes for them); the
  // library quotes every other row. This halves the cost of a large delivery.
  const plain = (cell: string) => !cell.includes(delimiter) && !/["\r\n]/.test(cell);
  const format = (records: string[][]) => {
    if (quoteAll) return quote(records);
    let out = "";
    for (const record of records) out += record.every(plain) ? `${record.join(delimiter)}\n` : quote([record]);
    return out;
  };
  // Rows are quoted in batches: the stream then moves a few hundred chunks per million rows, not a million.
  const source = Readable.from((function* () {
    yield format([table.columns]);
    let batch: string[][] = [];
    for (const row of table.rows()) {
      count.rows++;
      if (distance >= 0 && typeof row[distance] === "number") count.located++;
      batch.push(row.map(cellText));
      if (batch.length === CSV_BATCH_ROWS) {
        yield format(batch);
        batch = [];
      }
    }
    if (batch.length > 0) yield format(batch);
    onDone?.(count);
  })(), { objectMode: false, highWaterMark: 1 << 16 });
  if (!options.gzip) return source;
  const gzip = createGzip();
  // An error on either side ends the whole chain rather than leaving a half-piped stream behind.
  source.on("error", (error) => gzip.destroy(error));
  return source.pipe(gzip);
}

/** Writes a table's CSV to a destination (a file, a response), resolving with what was delivered. */
export async function writeCsv(table: Table, destination: Writable, options: CsvOptions = {}): Promise<DeliveryCount> {
  let count: DeliveryCount = { rows: 0, located: 0 };
  await pipeline(csvStream(table, options, (c) => (count = c)), destination);
  return count;
}
