import { describe, expect, it } from "vitest";
import {
  type AccessType,
  type Grant,
  all,
  any,
  describeRule,
  grantsSatisfying,
  holdsPermission,
  parsePermissionName,
  permissionNames,
  ruleHolds,
} from "./permissions.js";

const GROUP = "gr_0000000000aaaaaaaaaaaaaaaa";
const OTHER_GROUP = "gr_0000000000bbbbbbbbbbbbbbbb";

function grant(resource: string, access: readonly AccessType[], scope = "global"): Grant {
  return { resource, access, scope };
}

describe("permission names", () => {
  it("map Read onto the Read access type", () => {
    expect(parsePermissionName("Reports.Read")).toEqual({ resource: "Reports", requires: ["Read"] });
  });

  it("map Manage onto Add, Modify and Delete", () => {
    expect(parsePermissionName("Reports.Manage")).toEqual({ resource: "Reports", requires: ["Add", "Modify", "Delete"] });
  });

  it("map Invite onto Add", () => {
    expect(parsePermissionName("GroupMembers.Invite")).toEqual({ resource: "GroupMembers", requires: ["Add"] });
  });

  it("read a bare resource name as needing any access", () => {
    expect(parsePermissionName("AIProviders")).toEqual({ resource: "AIProviders", requires: [] });
  });

  it.each([
    "Reports.Write",
    "Reports.read",
    "Reports.",
    ".Read",
    "Reports.Read.Extra",
    "Reports.toString",
    "Reports.constructor",
    "Reports.__proto__",
    "",
  ])("refuse %j when a rule is declared", (name) => {
    expect(() => any(name)).toThrow(/permission/i);
    expect(() => all(name)).toThrow(/permission/i);
  });

  it("refuse an empty any() or all(), which would mean nothing or everything", () => {
    expect(() => any()).toThrow();
    expect(() => all()).toThrow();
  });
});

describe("holding one permission", () => {
  it("Read holds with a Read grant and not with write access alone", () => {
    expect(holdsPermission([grant("Reports", ["Read"])], "Reports.Read")).toBe(true);
    expect(holdsPermission([grant("Reports", ["Add", "Modify", "Delete"])], "Reports.Read")).toBe(false);
  });

  it("Manage needs all of Add, Modify and Delete", () => {
    expect(holdsPermission([grant("Reports", ["Add", "Modify", "Delete"])], "Reports.Manage")).toBe(true);
    expect(holdsPermission([grant("Reports", ["Add", "Modify"])], "Reports.Manage")).toBe(false);
    expect(holdsPermission([grant("Reports", ["Read"])], "Reports.Manage")).toBe(false);
  });

  it("Manage may be assembled from several grants of the same resource", () => {
    const grants = [grant("Reports", ["Add"]), grant("Reports", ["Modify", "Delete"])];
    expect(holdsPermission(grants, "Reports.Manage")).toBe(true);
  });

  it("Invite holds with Add alone", () => {
    expect(holdsPermission([grant("GroupMembers", ["Add"])], "GroupMembers.Invite")).toBe(true);
    expect(holdsPermission([grant("GroupMembers", ["Read", "Modify", "Delete"])], "GroupMembers.Invite")).toBe(false);
  });

  it.each<AccessType>(["Read", "Add", "Modify", "Delete"])("a bare name holds with %s access", (access) => {
    expect(holdsPermission([grant("AIProviders", [access])], "AIProviders")).toBe(true);
  });

  it("a bare name does not hold with a grant of no access types", () => {
    expect(holdsPermission([grant("AIProviders", [])], "AIProviders")).toBe(false);
  });

  it("a grant of another resource does not count", () => {
    expect(holdsPermission([grant("GroupReports", ["Read", "Add", "Modify", "Delete"])], "Reports.Read")).toBe(false);
    expect(holdsPermission([grant("GroupAIProviders", ["Read"])], "AIProviders")).toBe(false);
  });

  it("no grants hold nothing", () => {
    expect(holdsPermission([], "Reports.Read")).toBe(false);
    expect(holdsPermission([], "AIProviders")).toBe(false);
  });
});

describe("role scope", () => {
  it("a global grant counts with no group", () => {
    expect(holdsPermission([grant("Reports", ["Read"])], "Reports.Read", null)).toBe(true);
  });

  it("a global grant counts inside any group", () => {
    expect(holdsPermission([grant("Reports", ["Read"])], "Reports.Read", GROUP)).toBe(true);
  });

  it("a group-scoped grant counts inside its own group", () => {
    expect(holdsPermission([grant("GroupReports", ["Read"], GROUP)], "GroupReports.Read", GROUP)).toBe(true);
  });

  it("a group-scoped grant does not count outside any group", () => {
    expect(holdsPermission([grant("GroupReports", ["Read"], GROUP)], "GroupReports.Read", null)).toBe(false);
  });

  it("a group-scoped grant does not count in another group", () => {
    expect(holdsPermission([grant("GroupReports", ["Read"], GROUP)], "GroupReports.Read", OTHER_GROUP)).toBe(false);
  });

  it("a group-scoped grant does not complete a global one outside its group", () => {
    const grants = [grant("Reports", ["Add"]), grant("Reports", ["Modify", "Delete"], GROUP)];
    expect(holdsPermission(grants, "Reports.Manage", null)).toBe(false);
    expect(holdsPermission(grants, "Reports.Manage", OTHER_GROUP)).toBe(false);
    expect(holdsPermission(grants, "Reports.Manage", GROUP)).toBe(true);
  });
});

describe("rules", () => {
  const readReports = [grant("Reports", ["Read"])];

  it("any() holds when one of its rules holds", () => {
    expect(ruleHolds(any("Reports.Manage", "Reports.Read"), readReports)).toBe(true);
  });

  it("any() does not hold when none of its rules holds", () => {
    expect(ruleHolds(any("Reports.Manage", "Users.Read"), readReports)).toBe(false);
  });

  it("all() holds only when every rule holds", () => {
    const grants = [grant("Reports", ["Read"]), grant("Users", ["Read"])];
    expect(ruleHolds(all("Reports.Read", "Users.Read"), grants)).toBe(true);
    expect(ruleHolds(all("Reports.Read", "Users.Read"), readReports)).toBe(false);
  });

  it("nests any() inside all()", () => {
    const rule = all("Users.Read", any("Reports.Manage", "GroupReports.Manage"));
    const manageGroupReports = grant("GroupReports", ["Add", "Modify", "Delete"]);
    expect(ruleHolds(rule, [grant("Users", ["Read"]), manageGroupReports])).toBe(true);
    expect(ruleHolds(rule, [manageGroupReports])).toBe(false);
    expect(ruleHolds(rule, [grant("Users", ["Read"])])).toBe(false);
  });

  it("evaluates group-scoped grants in the group given", () => {
    const grants = [grant("GroupReports", ["Add", "Modify", "Delete"], GROUP)];
    const rule = any("Reports.Manage", "GroupReports.Manage");
    expect(ruleHolds(rule, grants, GROUP)).toBe(true);
    expect(ruleHolds(rule, grants, OTHER_GROUP)).toBe(false);
    expect(ruleHolds(rule, grants)).toBe(false);
  });

  it("lists the permission names a rule mentions, once each", () => {
    expect(permissionNames(all("Users.Read", any("Reports.Manage", "Users.Read")))).toEqual(["Users.Read", "Reports.Manage"]);
  });

  it("describes itself readably", () => {
    expect(describeRule(all("Users.Read", any("Reports.Manage", "GroupReports.Manage")))).toBe(
      "all(Users.Read, any(Reports.Manage, GroupReports.Manage))",
    );
  });
});

describe("grantsSatisfying", () => {
  const rules = [
    any("Reports.Read"),
    any("Reports.Manage", "GroupReports.Manage"),
    all("Users.Read", "Reports.Manage"),
    all("AIProviders", any("GroupMembers.Invite", "Users.Manage")),
    any("Reports.Read", "Reports.Manage"),
  ];

  it.each(rules.map((rule) => [describeRule(rule), rule] as const))("gives grants that satisfy %s", (_, rule) => {
    expect(ruleHolds(rule, grantsSatisfying(rule))).toBe(true);
  });

  it("gives group-scoped grants that satisfy the rule only in that group", () => {
    const rule = all("GroupSettings.Manage", "GroupMembers.Invite");
    const grants = grantsSatisfying(rule, GROUP);
    expect(grants.every((held) => held.scope === GROUP)).toBe(true);
    expect(ruleHolds(rule, grants, GROUP)).toBe(true);
    expect(ruleHolds(rule, grants, null)).toBe(false);
  });

  it("gives no more than one alternative of an any()", () => {
    expect(grantsSatisfying(any("Reports.Manage", "GroupReports.Manage"))).toEqual([
      { resource: "Reports", access: ["Add", "Modify", "Delete"], scope: "global" },
    ]);
  });
});
