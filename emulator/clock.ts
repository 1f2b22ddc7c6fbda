// The service's clock, as it writes times into documents.
let nowMs = Number.NaN;
let nowText = "";
/** The time as the service writes it; a request asks several times within the same millisecond. */
export function now(): string {
  const ms = Date.now();
  if (ms !== nowMs) nowText = new Date((nowMs = ms)).toISOString();
  return nowText;
}
