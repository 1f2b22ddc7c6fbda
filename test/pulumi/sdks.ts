// The SDKs `npm run sdk:gen` writes, generated once per test file into a folder of its own (a few seconds), so that
// files running at once never share one.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { generate, type Language } from "../../scripts/sdk-gen.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const folders = new Map<Language, string>();

/** The generated SDK of `language`: its folder (sdks/<language> as `npm run sdk:gen` writes it). */
export function generatedSdk(language: Language): string {
  let folder = folders.get(language);
  if (!folder) {
    const out = mkdtempSync(join(tmpdir(), `sdk-${language}-`));
    made.push(out);
    folder = generate([language], out)[language];
    folders.set(language, folder);
  }
  return folder;
}
