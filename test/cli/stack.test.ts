// `audience config` and `audience stack` on a program's stack: config written once into Pulumi.<stack>.yaml (secrets
// encrypted as Pulumi's passphrase provider does) is what `audience run` uses; outputs mask secrets; a state exported
// with --show-secrets and imported again is the same state.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PassphraseCrypter, Snapshot } from "../../provider/engine/index.ts";
import { loadProject, loadStackConfig, programConfigEnv } from "../../provider/engine/project.ts";
import { audience, copyProgram } from "./helpers.ts";

const PASSPHRASE = "stack commands passphrase";
const SECRET = "hunter2-secret";
const dir = copyProgram(join(import.meta.dirname, "..", "engine", "fixtures", "notes"), "cli-stack-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NOTES_DIR: dir };
const inProgram = (...args: string[]) => audience([...args, "--cwd", dir], { env });
const configFile = join(dir, "Pulumi.dev.yaml");
const statePath = join(dir, ".audience", "state", "dev.json");

describe("audience config", () => {
  it("set writes Pulumi.<stack>.yaml as Pulumi does: secure values encrypted with the passphrase, nested keys with --path", { timeout: 120_000 }, async () => {
    for (const args of [
      ["config", "set", "greeting", "salut"],
      ["config", "set", "--secret", "token", SECRET],
      ["config", "set", "--path", "--secret", "audience:accounts.north.apiKey", "key-north"],
      ["config", "set", "--path", "audience:accounts.north.baseUrl", "http://127.0.0.1:9/v1"],
    ]) {
      const r = await inProgram(...args);
      expect(r.code, r.stderr).toBe(0);
    }
    const text = readFileSync(configFile, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("key-north");
    const doc = parse(text) as { encryptionsalt: string; config: Record<string, unknown> };
    expect(doc.config["notes:greeting"]).toBe("salut");
    const token = (doc.config["notes:token"] as { secure: string }).secure;
    const north = (doc.config["audience:accounts"] as { north: { apiKey: { secure: string }; baseUrl: string } }).north;
    expect(north.baseUrl).toBe("http://127.0.0.1:9/v1");
    const crypter = await PassphraseCrypter.open(PASSPHRASE, doc.encryptionsalt);
    expect(crypter.decrypt(token)).toBe(SECRET);
    expect(crypter.decrypt(north.apiKey.secure)).toBe("key-north");
    await expect(PassphraseCrypter.open("another passphrase", doc.encryptionsalt)).rejects.toThrow(/incorrect passphrase/);
  });

  it("get prints values decrypted, nested ones with --path; the listing masks secrets", { timeout: 120_000 }, async () => {
    expect((await inProgram("config", "get", "token")).stdout).toBe(`${SECRET}\n`);
    expect((await inProgram("config", "get", "--path", "audience:accounts.north.apiKey")).stdout).toBe("key-north\n");
    const list = await inProgram("config");
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^notes:greeting +salut$/m);
    expect(list.stdout).toMatch(/^notes:token +\[secret\]$/m);
    expect(list.stdout).toMatch(/^audience:accounts +\[secret\]$/m);
    expect(list.stdout).not.toContain(SECRET);
    const wrong = await audience(["config", "get", "token", "--cwd", dir], { env: { ...env, PULUMI_CONFIG_PASSPHRASE: "wrong" } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: incorrect passphrase/);
    const missing = await inProgram("config", "get", "nothing");
    expect(missing.code).toBe(1);
    // The command it names is the listing above, which runs from where the user is: the program's directory named.
    expect(missing.stderr).toBe(`error: config "nothing" is not set for stack dev (see \`audience config --cwd ${dir}\`)\n`);
    // A misspelled stack is an error a script sees, not an empty listing.
    const typo = await inProgram("config", "--stack", "devv", "--json");
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toBe(`error: no stack "devv" here: ${join(dir, "Pulumi.devv.yaml")} does not exist and the stack has no state (stacks configured here: dev); \`audience config set <key> <value> --cwd ${dir} --stack devv\` begins its config\n`);
  });

  it("set reads a value left out of the command line from stdin; a wrong passphrase changes nothing", { timeout: 120_000 }, async () => {
    const piped = await audience(["config", "set", "--secret", "piped", "--cwd", dir], { env, input: "from-stdin\n" });
    expect(piped.code, piped.stderr).toBe(0);
    expect((await inProgram("config", "get", "piped")).stdout).toBe("from-stdin\n");
    const before = readFileSync(configFile, "utf8");
    const wrongSet = await audience(["config", "set", "--secret", "other", "value", "--cwd", dir], { env: { PULUMI_CONFIG_PASSPHRASE: "" } });
    expect(wrongSet.code).toBe(1);
    expect(wrongSet.stderr).toMatch(/^error: incorrect passphrase/);
    expect(readFileSync(configFile, "utf8")).toBe(before);
    // An empty stdin (a variable that was not set) is refused, not saved as an empty secret.
    const empty = await audience(["config", "set", "--secret", "audience:apiKey", "--cwd", dir], { env, input: "" });
    expect(empty.code).toBe(2); // a usage error
    expect(empty.stderr).toMatch(/config set --secret audience:apiKey: stdin was empty/);
    expect(readFileSync(configFile, "utf8")).toBe(before);
  });

  it("a structured value holding a secure member reaches the program decrypted and secret", async () => {
    const { config } = await loadStackConfig(loadProject(dir), "dev", PASSPHRASE);
    const programEnv = programConfigEnv(config);
    expect(JSON.parse(JSON.parse(programEnv["PULUMI_CONFIG"]!)["audience:accounts"])).toEqual({ north: { apiKey: "key-north", baseUrl: "http://127.0.0.1:9/v1" } });
    expect(JSON.parse(programEnv["PULUMI_CONFIG_SECRET_KEYS"]!)).toEqual(expect.arrayContaining(["audience:accounts", "notes:token"]));
  });

  it("audience run reads the stack's config file: no -c/--secret flags needed", { timeout: 180_000 }, async () => {
    const up = await inProgram("run", "up", "--yes");
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout + up.stderr).not.toContain(SECRET);
    const outputs = JSON.parse((await inProgram("stack", "output", "--json", "--show-secrets")).stdout) as Record<string, string>;
    expect(outputs["twoText"]).toBe("after salut");
    expect(outputs["vaultText"]).toBe(SECRET);
  });

  it("rm removes a key, or one member with --path", { timeout: 120_000 }, async () => {
    expect((await inProgram("config", "rm", "--path", "audience:accounts.north.apiKey")).code).toBe(0);
    expect((await inProgram("config", "rm", "greeting")).code).toBe(0);
    const doc = parse(readFileSync(configFile, "utf8")) as { config: Record<string, unknown> };
    expect(doc.config["audience:accounts"]).toEqual({ north: { baseUrl: "http://127.0.0.1:9/v1" } });
    expect(doc.config).not.toHaveProperty("notes:greeting");
    expect((await inProgram("config", "get", "greeting")).code).toBe(1);
    expect((await inProgram("config", "get", "token")).stdout).toBe(`${SECRET}\n`);
  });

  it("a value below one that is neither a map nor a list is refused with the command that removes that one, which runs as printed", { timeout: 120_000 }, async () => {
    const inOther = (...args: string[]) => inProgram(...args, "--stack", "other");
    expect((await inOther("config", "set", "--path", "audience:accounts.north", "plain")).code).toBe(0);
    const refused = await inOther("config", "set", "--path", "audience:accounts.north.apiKey", "key");
    expect(refused.code).toBe(1);
    const remove = `audience config rm --path audience:accounts.north --cwd ${dir} --stack other`;
    expect(refused.stderr).toBe(`error: ${join(dir, "Pulumi.other.yaml")}: cannot set "audience:accounts.north.apiKey": a value on its path is not a map or list (remove it first with \`${remove}\`)\n`);
    expect((await audience(remove.split(" ").slice(1), { env })).code).toBe(0);
    expect((await inOther("config", "set", "--path", "audience:accounts.north.apiKey", "key")).code).toBe(0);
    expect(parse(readFileSync(join(dir, "Pulumi.other.yaml"), "utf8"))).toEqual({ config: { "audience:accounts": { north: { apiKey: "key" } } } });
  });
});

describe("audience stack", () => {
  it("output lists the outputs with secrets masked, one output alone, or all as JSON", { timeout: 120_000 }, async () => {
    const all = await inProgram("stack", "output");
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^Current stack outputs \(10\):\n {4}OUTPUT +VALUE\n/);
    expect(all.stdout).toMatch(/^ {4}twoText +after salut$/m);
    expect(all.stdout).toMatch(/^ {4}vaultText +\[secret\]$/m);
    expect(all.stdout).toMatch(/^ {4}vaultHeld +\{"slot":"kept","text":"\[secret\]"\}$/m);
    expect(all.stdout).not.toContain(SECRET);
    expect((await inProgram("stack", "output", "vaultText")).stdout).toBe("[secret]\n");
    expect((await inProgram("stack", "output", "vaultText", "--show-secrets")).stdout).toBe(`${SECRET}\n`);
    expect((await inProgram("stack", "output", "twoText")).stdout).toBe("after salut\n");
    const json = JSON.parse((await inProgram("stack", "output", "--json")).stdout) as Record<string, string>;
    expect(json).toMatchObject({ twoText: "after salut", vaultText: "[secret]", stackName: "dev" });
    const unknown = await inProgram("stack", "output", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: stack dev has no output "nope" \(its outputs: copyText, .*vaultHeld, vaultPath, vaultText\)\n$/);
  });

  it("export prints the state as `pulumi stack export` does: secrets encrypted, or in plaintext with --show-secrets", { timeout: 120_000 }, async () => {
    const sealed = await inProgram("stack", "export");
    expect(sealed.code, sealed.stderr).toBe(0);
    expect(sealed.stdout).not.toContain(SECRET);
    const doc = JSON.parse(sealed.stdout) as { version: number; deployment: { secrets_providers: { type: string }; resources: { type: string }[] } };
    expect(doc.version).toBe(3);
    expect(doc.deployment.secrets_providers.type).toBe("passphrase");
    expect(doc.deployment.resources.map((r) => r.type)).toContain("pulumi:pulumi:Stack");
    expect(sealed.stdout).toMatch(/"ciphertext": "v1:/);
    const shown = await inProgram("stack", "export", "--show-secrets");
    expect(shown.stdout).toContain(`"plaintext": ${JSON.stringify(JSON.stringify(SECRET))}`);
    expect(shown.stdout).not.toContain('"ciphertext"');
  });

  it("import of an export made with --show-secrets gives back the same state, secrets encrypted again", { timeout: 180_000 }, async () => {
    const before = await Snapshot.load(statePath, PASSPHRASE);
    const exported = join(dir, "export.json");
    expect((await inProgram("stack", "export", "--show-secrets", "--file", exported)).code).toBe(0);
    rmSync(statePath);
    const imported = await inProgram("stack", "import", "--file", exported);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/^imported 7 resources into notes\/dev/);
    expect(readFileSync(statePath, "utf8")).not.toContain(SECRET);
    const after = await Snapshot.load(statePath, PASSPHRASE);
    expect(after.resources).toEqual(before.resources);
    // Through stdin, an export with encrypted secrets is taken as well.
    const sealed = (await inProgram("stack", "export")).stdout;
    const again = await audience(["stack", "import", "--cwd", dir], { env, input: sealed });
    expect(again.code, again.stderr).toBe(0);
    expect((await Snapshot.load(statePath, PASSPHRASE)).resources).toEqual(before.resources);
    // An export of a stack kept by another secrets provider (Pulumi Cloud), made with --show-secrets, is taken too.
    const cloud = JSON.parse(readFileSync(exported, "utf8")) as { deployment: Record<string, unknown> };
    cloud.deployment["secrets_providers"] = { type: "service", state: { url: "https://api.pulumi.com", owner: "org", project: "notes", stack: "dev" } };
    const fromCloud = await audience(["stack", "import", "--cwd", dir], { env, input: JSON.stringify(cloud) });
    expect(fromCloud.code, fromCloud.stderr).toBe(0);
    expect((await Snapshot.load(statePath, PASSPHRASE)).resources).toEqual(before.resources);
    // The program finds every resource where it left it: nothing to create or delete (greeting was removed, hence updates).
    const preview = await inProgram("run", "preview", "--json");
    expect(preview.code, preview.stderr).toBe(0);
    expect((JSON.parse(preview.stdout) as { changes: Record<string, number> }).changes).toEqual({ same: 4, update: 2 });
  });

  it("import refuses another stack's resources and a damaged document, naming what is wrong", { timeout: 120_000 }, async () => {
    const exported = readFileSync(join(dir, "export.json"), "utf8");
    const foreign = join(dir, "foreign.json");
    writeFileSync(foreign, exported.replaceAll("urn:pulumi:dev::", "urn:pulumi:prod::"));
    const r = await inProgram("stack", "import", "--file", foreign);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/belongs to notes\/prod, not to notes\/dev\n$/);
    const damaged = await audience(["stack", "import", "--cwd", dir], { env, input: '{"version": 3, "deployment": {"resources": [{"urn": 1}]}}' });
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/^error: stdin: not a stack state of version 3 .*deployment\.resources\[0\]\.urn/);
    const before = await Snapshot.load(statePath, PASSPHRASE);
    expect(before.resources).toHaveLength(7);
  });

  it("rm refuses a stack that holds resources, naming them on lines of their own; --force removes state and config", { timeout: 120_000 }, async () => {
    const refused = await inProgram("stack", "rm");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: stack dev still holds \d+ resources:\n {2}urn:pulumi:dev::notes::/);
    expect(refused.stderr).toContain(`\nDestroy them first (\`audience run destroy --cwd ${dir}\`), or remove the stack anyway with --force`);
    for (const line of refused.stderr.split("\n")) expect(line.length).toBeLessThan(160);
    expect(existsSync(statePath)).toBe(true);
    const forced = await inProgram("stack", "rm", "--force");
    expect(forced.code, forced.stderr).toBe(0);
    expect(existsSync(statePath)).toBe(false);
    expect(existsSync(configFile)).toBe(false);
  });
});
