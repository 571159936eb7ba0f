import { describe, expect, it } from "vitest";
import { type AppCaller, GUEST, type UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { type Grant, any } from "../../domain/permissions.js";
import {
  type Access,
  authenticated,
  fromBody,
  fromParam,
  fromQuery,
  permission,
  publicAccess,
  requiresCredentials,
  signedOut,
} from "./access.js";
import { type AccessInputs, authorize } from "./authorize.js";

const GROUP = "gr_0000000000aaaaaaaaaaaaaaaa";
const NO_INPUTS: AccessInputs = { params: {}, query: {}, body: {} };

function user(grants: readonly Grant[], scopes: readonly string[] = ["read", "write", "admin:read", "admin:write"]): UserCaller {
  return { kind: "user", accountId: "us_1", sessionId: "se_1", scopes, emailConfirmed: true, grants: async () => grants };
}

const app: AppCaller = { kind: "app", appId: "ap_1", sessionId: "se_2", scopes: ["read"] };

/** The code authorize refuses with, or "allowed". */
async function outcome(...args: Parameters<typeof authorize>): Promise<string> {
  try {
    await authorize(...args);
    return "allowed";
  } catch (error) {
    if (error instanceof KithError) return error.code;
    throw error;
  }
}

const manageGroupReports = permission(any("Reports.Manage", "GroupReports.Manage"), { group: fromQuery("scope") });
const groupReportGrants: Grant[] = [{ resource: "GroupReports", access: ["Add", "Modify", "Delete"], scope: GROUP }];

describe("access rules", () => {
  it("need credentials only for signed-in and permission routes", () => {
    const cases: [Access, boolean][] = [
      [publicAccess, false],
      [signedOut, false],
      [authenticated, true],
      [permission(any("Reports.Read")), true],
    ];
    for (const [access, expected] of cases) expect(requiresCredentials(access)).toBe(expected);
  });
});

describe("authorizing a caller", () => {
  it("lets a guest call a public route", async () => {
    expect(await outcome(GUEST, publicAccess, [], NO_INPUTS)).toBe("allowed");
  });

  it("turns a guest away from a signed-in route with 401", async () => {
    expect(await outcome(GUEST, authenticated, [], NO_INPUTS)).toBe("auth.unauthenticated");
  });

  it("turns a guest away from a permission route with 401", async () => {
    expect(await outcome(GUEST, permission(any("Reports.Read")), [], NO_INPUTS)).toBe("auth.unauthenticated");
  });

  it("turns an app token without a user away from a signed-in route with 401", async () => {
    expect(await outcome(app, authenticated, ["read"], NO_INPUTS)).toBe("auth.unauthenticated");
  });

  it("lets an app token call a public route within its scopes", async () => {
    expect(await outcome(app, publicAccess, ["read:statuses"], NO_INPUTS)).toBe("allowed");
  });

  it("refuses a token without any of the route's scopes with auth.insufficient_scope", async () => {
    expect(await outcome(user([], ["write"]), authenticated, ["read:accounts", "profile"], NO_INPUTS)).toBe("auth.insufficient_scope");
  });

  it("lets a token in with one of the route's scopes", async () => {
    expect(await outcome(user([], ["profile"]), authenticated, ["read:accounts", "profile"], NO_INPUTS)).toBe("allowed");
  });

  it("refuses a signed-in user on a signed-out route", async () => {
    expect(await outcome(user([]), signedOut, [], NO_INPUTS)).toBe("auth.must_not_be_authenticated");
  });

  it("refuses a user without the permission with auth.forbidden", async () => {
    expect(await outcome(user([]), permission(any("Reports.Read")), [], NO_INPUTS)).toBe("auth.forbidden");
  });

  it("lets a user with a global grant in", async () => {
    const grants: Grant[] = [{ resource: "Reports", access: ["Read"], scope: "global" }];
    expect(await outcome(user(grants), permission(any("Reports.Read")), [], NO_INPUTS)).toBe("allowed");
  });

  it("counts a group-scoped grant when the request names its group", async () => {
    const inputs = { ...NO_INPUTS, query: { scope: GROUP } };
    expect(await outcome(user(groupReportGrants), manageGroupReports, [], inputs)).toBe("allowed");
  });

  it("does not count a group-scoped grant when the request names another group", async () => {
    const inputs = { ...NO_INPUTS, query: { scope: "gr_0000000000bbbbbbbbbbbbbbbb" } };
    expect(await outcome(user(groupReportGrants), manageGroupReports, [], inputs)).toBe("auth.forbidden");
  });

  it("does not count a group-scoped grant when the request names no group", async () => {
    expect(await outcome(user(groupReportGrants), manageGroupReports, [], NO_INPUTS)).toBe("auth.forbidden");
  });

  it("does not count a group-scoped grant on a route that selects no group", async () => {
    const inputs = { ...NO_INPUTS, query: { scope: GROUP } };
    expect(await outcome(user(groupReportGrants), permission(any("GroupReports.Manage")), [], inputs)).toBe("auth.forbidden");
  });

  it("finds the group in path parameters or the body as the route says", async () => {
    const fromPath = permission(any("GroupReports.Manage"), { group: fromParam("groupId") });
    const inBody = permission(any("GroupReports.Manage"), { group: fromBody("groupId") });
    expect(await outcome(user(groupReportGrants), fromPath, [], { ...NO_INPUTS, params: { groupId: GROUP } })).toBe("allowed");
    expect(await outcome(user(groupReportGrants), inBody, [], { ...NO_INPUTS, body: { groupId: GROUP } })).toBe("allowed");
    expect(await outcome(user(groupReportGrants), inBody, [], { ...NO_INPUTS, query: { groupId: GROUP } })).toBe("auth.forbidden");
  });

  it("ignores a group given as something other than a string", async () => {
    const inputs = { ...NO_INPUTS, query: { scope: [GROUP] } };
    expect(await outcome(user(groupReportGrants), manageGroupReports, [], inputs)).toBe("auth.forbidden");
  });
});

describe("users whose email is not confirmed", () => {
  const unconfirmed: UserCaller = { ...user([{ resource: "Jobs", access: ["Read"], scope: "global" }]), emailConfirmed: false };

  it("are refused by routes that act as a user, after the permission check", async () => {
    expect(await outcome(unconfirmed, authenticated, [], NO_INPUTS)).toBe("registration.email_unconfirmed");
    expect(await outcome(unconfirmed, permission(any("Jobs.Read")), [], NO_INPUTS)).toBe("registration.email_unconfirmed");
    expect(await outcome(unconfirmed, permission(any("Users.Manage")), [], NO_INPUTS)).toBe("auth.forbidden");
  });

  it("may call public routes and the routes that allow them", async () => {
    expect(await outcome(unconfirmed, publicAccess, [], NO_INPUTS)).toBe("allowed");
    expect(await outcome(unconfirmed, authenticated, [], NO_INPUTS, { allowUnconfirmedEmail: true })).toBe("allowed");
  });
});
