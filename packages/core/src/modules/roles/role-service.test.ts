import { describe, expect, it } from "vitest";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import { checkScope, grantsCover, isGroupResource, normalizePermissions } from "./role-service.js";

const GROUP = "gr_0000000000aaaaaaaaaaaaaaaa";
const OTHER = "gr_0000000000bbbbbbbbbbbbbbbb";

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return error instanceof KithError ? error.code : "other";
  }
  return undefined;
}

describe("role permissions", () => {
  it("merges duplicate resources and orders access types", () => {
    expect(
      normalizePermissions(
        [
          { resource: "Reports", access: ["Delete", "Read"] },
          { resource: "Reports", access: ["Read", "Add"] },
        ],
        "global",
      ),
    ).toEqual([{ resource: "Reports", access: ["Read", "Add", "Delete"] }]);
  });

  it("refuses unknown resources, unknown or missing access types, and non-group resources in group scope", () => {
    expect(codeOf(() => normalizePermissions([{ resource: "Nope", access: ["Read"] }], "global"))).toBe("role.invalid");
    expect(codeOf(() => normalizePermissions([{ resource: "Users", access: ["Fly"] }], "global"))).toBe("role.invalid");
    expect(codeOf(() => normalizePermissions([{ resource: "Users", access: [] }], "global"))).toBe("role.invalid");
    expect(codeOf(() => normalizePermissions([{ resource: "Users", access: ["Read"] }], GROUP))).toBe("role.invalid");
    expect(codeOf(() => normalizePermissions([{ resource: "GroupMembers", access: ["Add"] }], GROUP))).toBeUndefined();
    expect(["GroupReports", "GroupAIProviders", "GroupApps", "GroupSettings", "GroupMembers"].every(isGroupResource)).toBe(true);
    expect(isGroupResource("Groupies")).toBe(false);
  });

  it("lets a group role hold Data, which a group owns, and still refuses the server-wide resources", () => {
    expect(isGroupResource("Data")).toBe(true);
    expect(codeOf(() => normalizePermissions([{ resource: "Data", access: ["Add", "Modify", "Delete"] }], GROUP))).toBeUndefined();
    for (const resource of ["Users", "Roles", "Reports", "Uploads", "Jobs", "Federation", "AdminSettings", "Signups", "AIProviders"]) {
      expect(isGroupResource(resource)).toBe(false);
      expect(codeOf(() => normalizePermissions([{ resource, access: ["Read"] }], GROUP))).toBe("role.invalid");
    }
  });

  it("accepts 'global' and group ids as scopes only", () => {
    expect(checkScope("global")).toBe("global");
    expect(checkScope(GROUP)).toBe(GROUP);
    expect(codeOf(() => checkScope("gr_short"))).toBe("role.invalid");
  });

  it("covers a role's permissions with global grants anywhere and group grants in their group only", () => {
    const grants: Grant[] = [
      { resource: "Users", access: ["Read"], scope: "global" },
      { resource: "GroupMembers", access: ["Add", "Read"], scope: GROUP },
    ];
    expect(grantsCover(grants, [{ resource: "Users", access: ["Read"] }], "global")).toBe(true);
    expect(grantsCover(grants, [{ resource: "Users", access: ["Read", "Modify"] }], "global")).toBe(false);
    expect(grantsCover(grants, [{ resource: "GroupMembers", access: ["Add"] }], GROUP)).toBe(true);
    expect(grantsCover(grants, [{ resource: "GroupMembers", access: ["Add"] }], OTHER)).toBe(false);
    expect(grantsCover(grants, [{ resource: "GroupMembers", access: ["Add"] }], "global")).toBe(false);
    expect(grantsCover(grants, [], "global")).toBe(true);
  });
});
