// Signed, expiring URLs for hosted outputs (a target's CSV, reports): an HMAC over the path and expiry.
// The key lives for the process; output URLs are signed afresh on every read, so a restart only
// invalidates URLs handed out before it, as an expired signature would.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const key = randomBytes(32);

/** Signed over the path without its `/v1` prefix: the service answers both forms. */
function signature(path: string, expires: number): string {
  const canonical = path.replace(/^\/v1(?=\/)/, "");
  return createHmac("sha256", key).update(`${canonical}\n${expires}`).digest("hex");
}

/** `path` (e.g. `/v1/targets/ID/download.csv`) with `expires` (epoch seconds) and `signature` query parameters. */
export function signUrl(path: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${path}?expires=${expires}&signature=${signature(path, expires)}`;
}

export type SignedUrlCheck = "valid" | "expired" | "invalid";

/** Checks a URL (absolute, or a path with its query) made by `signUrl`. */
export function verifySignedUrl(url: string): SignedUrlCheck {
  const parsed = new URL(url, "http://localhost");
  const expires = Number(parsed.searchParams.get("expires"));
  const given = parsed.searchParams.get("signature") ?? "";
  if (!Number.isInteger(expires) || !/^[0-9a-f]{64}$/.test(given)) return "invalid";
  const expected = Buffer.from(signature(parsed.pathname, expires), "hex");
  if (!timingSafeEqual(expected, Buffer.from(given, "hex"))) return "invalid";
  return expires * 1000 < Date.now() ? "expired" : "valid";
}
