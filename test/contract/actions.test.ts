import { describe, expect, it } from "vitest";
import { archiveRequest, checkUpload, insightsQuery, lookupRequest, rotateCredentials, validate } from "pulumi-audience/sdk/contract";

const A = "6f1c2a9e-0a8b-4c3d-9e2f-1a2b3c4d5e6f";

describe("action bodies", () => {
  it("archive takes optional cascade options only", () => {
    expect(validate(archiveRequest, {}).ok).toBe(true);
    expect(validate(archiveRequest, { cascade_to: [A], cascade_to_all: false }).ok).toBe(true);
    expect(validate(archiveRequest, { cascade_to: ["nope"] })).toMatchObject({ ok: false, errors: [{ path: "cascade_to[0]", message: "must be a uuid" }] });
    expect(validate(archiveRequest, { cascade: true })).toMatchObject({ ok: false, errors: [{ path: "cascade", message: "is not a recognized field" }] });
  });

  const matchable: [string, unknown][] = [
    ["an e-mail", { email: "a@example.com" }],
    ["an e-mail hash", { email_hash: "ab12" }],
    ["a phone with last name", { phone: "5551234567", person_last_name: "Doe" }],
    ["an address with city and state", { house_number_and_street: ["1 Main St"], city: "Burlington", state: "VT" }],
    ["one sufficient record among identity_sets", { person_first_name: "Ann", identity_sets: [{ city: "X" }, { email: "a@example.com" }] }],
  ];
  it.each(matchable)("lookup accepts %s", (_what, body) => {
    expect(validate(lookupRequest, body)).toMatchObject({ ok: true });
  });

  const unmatchable: [string, unknown][] = [
    ["a phone alone", { phone: "5551234567" }],
    ["an address without state", { house_number_and_street: "1 Main St", city: "Burlington" }],
    ["blank values", { email: "  " }],
    ["nothing", {}],
  ];
  it.each(unmatchable)("lookup refuses %s, saying what identifies a person", (_what, body) => {
    const result = validate(lookupRequest, body);
    expect(result).toMatchObject({ ok: false, errors: [{ path: "" }] });
    if (!result.ok) expect(result.errors[0]?.message).toContain("phone with person_last_name");
  });

  it("lookup names an unknown identifying field", () => {
    expect(validate(lookupRequest, { email: "a@example.com", shoe_size: "9" }))
      .toMatchObject({ ok: false, errors: [{ path: "shoe_size", message: "is not a recognized field" }] });
  });

  it("insights query must say something", () => {
    expect(validate(insightsQuery, { query: "SELECT count(*) FROM people" }).ok).toBe(true);
    expect(validate(insightsQuery, { query: " " })).toMatchObject({ ok: false, errors: [{ path: "query", message: "must be a non-empty query" }] });
  });

  it("credential rotation names the connection type", () => {
    expect(validate(rotateCredentials, { type: "postgres" }).ok).toBe(true);
    expect(validate(rotateCredentials, {})).toMatchObject({ ok: false, errors: [{ path: "type", message: "is required" }] });
  });
});

describe("checkUpload", () => {
  it.each(["people.csv", "people.csv.gz", "people.csv.bz2", "2024-01_orders.CSV"])("accepts %s", (filename) => {
    expect(checkUpload("crm", filename)).toEqual([]);
  });
  const refused: [string, string, string, string][] = [
    ["crm", "people.zip", "filename", "no longer supported"],
    ["crm", "people.tar", "filename", "no longer supported"],
    ["crm", "people.xlsx", "filename", "must end with one of .csv"],
    ["crm", "../etc/passwd", "filename", "one path segment"],
    ["../up", "people.csv", "directory", "one path segment"],
    ["", "people.csv", "directory", "one path segment"],
  ];
  it.each(refused)("refuses %s/%s at %s", (directory, filename, path, words) => {
    const errors = checkUpload(directory, filename);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path });
    expect(errors[0]?.message).toContain(words);
  });
});
