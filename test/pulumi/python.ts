// A virtualenv holding a Python program's requirements and the generated audience SDK, made as the example's README
// tells a user: `python3 -m venv`, the SDK built into a wheel, `pip install -r requirements.txt <wheel>`.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll } from "vitest";
import { generatedSdk } from "./sdks.ts";

const run = promisify(execFile);
const made: string[] = [];
const virtualenvs = new Map<string, Promise<string>>();
afterAll(() => {
  virtualenvs.clear();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A virtualenv with `requirements` (a requirements.txt) and the generated SDK's wheel installed, made once per test
 * file (about 20 s of CPU each); its bin folder, to put first on PATH (what `source venv/bin/activate` does).
 */
export function pythonVirtualenv(requirements: string): Promise<string> {
  let venv = virtualenvs.get(requirements);
  if (!venv) virtualenvs.set(requirements, (venv = newVirtualenv(requirements)));
  return venv;
}

async function newVirtualenv(requirements: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "python-venv-"));
  made.push(work);
  await run("python3", ["-m", "venv", join(work, "venv")]);
  const pip = join(work, "venv", "bin", "pip");
  await run(pip, ["wheel", "--quiet", "--no-deps", "--wheel-dir", join(work, "wheels"), generatedSdk("python")]);
  const [built] = readdirSync(join(work, "wheels"));
  await run(pip, ["install", "--quiet", "-r", requirements, join(work, "wheels", built!)]);
  return join(work, "venv", "bin");
}
