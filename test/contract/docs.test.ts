// Field docs: every member of every family, created or answered, nested ones too, has one; none is stale.
import { describe, expect, it } from "vitest";
import { documentedMembers, families, isDeprecated, memberDoc, membersOf, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";

const entries = Object.entries(families) as [Collection, FamilyDef][];

describe("field docs", () => {
  it("document every member of every family's create and response schemas", () => {
    const undocumented = entries.flatMap(([collection, family]) =>
      [...documentedMembers(collection, family, family.create), ...documentedMembers(collection, family, family.response)]
        .filter((member) => member.description === undefined)
        .map((member) => `${collection}: ${member.path}`));
    expect([...new Set(undocumented)]).toEqual([]);
  });

  it("name only members that exist", () => {
    const stale = entries.flatMap(([collection, family]) => {
      const paths = new Set([...membersOf(family.create), ...membersOf(family.response)].map((m) => m.path));
      return Object.keys(families[collection].docs).filter((path) => !paths.has(path)).map((path) => `${collection}: ${path}`);
    });
    expect(stale).toEqual([]);
  });

  it("give every member the contract marks deprecated its replacement", () => {
    const unmarked = entries.flatMap(([collection, family]) => documentedMembers(collection, family, family.create)
      .filter((member) => isDeprecated(member.schema) && member.deprecated === undefined)
      .map((member) => `${collection}: ${member.path}`));
    expect(unmarked).toEqual([]);
    expect(memberDoc("cohorts", "place_conditions")).toMatchObject({ deprecated: expect.stringContaining("locationConditions") });
  });

  it("state defaults, allowed values and create-only members from the contract", () => {
    const scope = documentedMembers("scopes", families.scopes, families.scopes.create);
    expect(scope.find((m) => m.path === "payload.location.selection")?.description).toMatch(/One of `nearest`, `all`\. Default: `"nearest"`\.$/);
    const target = documentedMembers("targets", families.targets, families.targets.create);
    expect(target.find((m) => m.path === "options.type")?.description).toMatch(/Changing it replaces the resource\.$/);
    expect(target.find((m) => m.path === "options")?.description).toMatch(/Changing `type` replaces the resource\.$/);
    expect(target.find((m) => m.path === "scope_id")?.description).not.toMatch(/replaces/);
    const cohort = documentedMembers("cohorts", families.cohorts, families.cohorts.create);
    expect(cohort.find((m) => m.path === "stream_conditions[]._on_or_after")?.description).toMatch(/YYYY-MM-DD.*only on date properties/);
  });
});
