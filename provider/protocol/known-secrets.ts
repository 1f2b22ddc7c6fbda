// The secret values a run knows, kept out of what it prints and records: a service's error may quote the request it
// refused (a 422's note, a proxy's 5xx page), and Pulumi's engine masks the values it knows to be secret the same way.
// Looked for only when a text is to be shown (a failure, a diagnostic), each value walked once.
import { isSecret } from "./values.ts";

/** How a secret reads wherever it would be shown. */
export const SECRET_TEXT = "[secret]";

/** Shorter texts are left as they are: masking every "no" or "1" would garble the message around it. */
const SHORTEST = 4;

/** The texts held inside a secret in `value`, as written and as JSON quotes them. */
function textsIn(value: unknown, found: string[] = [], inSecret = false): string[] {
  if (typeof value === "string") {
    if (inSecret && value.length >= SHORTEST) found.push(value, JSON.stringify(value).slice(1, -1));
  } else if (Array.isArray(value)) {
    for (const v of value) textsIn(v, found, inSecret);
  } else if (typeof value === "object" && value !== null) {
    if (isSecret(value)) return textsIn(value.value, found, true);
    for (const key in value) textsIn((value as Record<string, unknown>)[key], found, inSecret);
  }
  return found;
}

/** Masks, in a text, the secrets of the values it is given; each value (an inputs or outputs map) is walked once. */
export class KnownSecrets {
  readonly #walked = new WeakMap<object, string[]>();

  /** `text` with every secret text of `values` as `[secret]`, the longest first. */
  mask(text: string, values: Iterable<unknown>): string {
    const secrets = new Set<string>();
    for (const value of values) {
      if (typeof value !== "object" || value === null) continue;
      let texts = this.#walked.get(value);
      if (texts === undefined) this.#walked.set(value, (texts = textsIn(value)));
      for (const t of texts) secrets.add(t);
    }
    let out = text;
    for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(secret)) out = out.split(secret).join(SECRET_TEXT);
    return out;
  }
}
