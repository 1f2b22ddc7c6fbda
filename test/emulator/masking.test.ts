// An answer's credentials are masked on a copy of only what leads to them: the stored document is left as it is,
// and what holds no secret is shared with it.
import { describe, expect, it } from "vitest";
import { families, SECRET_PLACEHOLDER } from "pulumi-audience/sdk/contract";
import { maskedCopy } from "../../emulator/masking.ts";

describe("maskedCopy", () => {
  it("masks every secret path, nested ones included, and leaves the stored document unchanged", () => {
    const stored = { id: "c1", name: "Warehouse", options: { type: "postgres", host: "db", password: "pw" }, tags: { team: "data" } };
    const before = structuredClone(stored);
    const masked = maskedCopy(families.connections, stored);
    expect(masked.options).toMatchObject({ host: "db", password: SECRET_PLACEHOLDER });
    expect(stored).toEqual(before);
    expect(masked.tags).toBe(stored.tags);
    expect(masked.options).not.toBe(stored.options);
  });

  it("masks a top-level secret and leaves an absent one absent", () => {
    const stored = { id: "w1", url: "https://hooks.example.com", secret: "s3cr3t" };
    expect(maskedCopy(families.webhook_endpoints, stored)).toEqual({ ...stored, secret: SECRET_PLACEHOLDER });
    expect(stored.secret).toBe("s3cr3t");
    expect(maskedCopy(families.webhook_endpoints, { id: "w2", url: "https://x" })).toEqual({ id: "w2", url: "https://x" });
  });
});
