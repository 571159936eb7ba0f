import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UserCaller, any, lowestIdAt, ruleHolds } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";
import { createGroup } from "../support/groups.js";

const BASE = "/api/v1/admin/rbac";
const GROUP = lowestIdAt("group", Date.UTC(2026, 0, 3));
const OTHER_GROUP = lowestIdAt("group", Date.UTC(2026, 0, 4));

interface RoleJson {
  roleId: string;
  name: string;
  description: string | null;
  scope: string;
  builtIn: boolean;
  createdAt: string;
  updatedAt: string;
  permissions: { resource: string; access: string[] }[];
}

interface ActorRoleJson {
  actorId: string;
  roleId: string;
  createdAt: string;
  updatedAt: string;
}

describeOnEngines("RBAC administration", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let admin: TestUser;
  let plain: TestUser;
  let serial = 0;
  const roleIds = new Map<string, string>();

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("rbac_owner", { role: "Owner" });
    admin = await kith.createUser("rbac_admin", { role: "Admin" });
    plain = await kith.createUser("rbac_plain");
    const roles = (await (await kith.request("GET", `${BASE}/roles`, { token: owner.token })).json()) as RoleJson[];
    for (const role of roles) roleIds.set(role.name, role.roleId);
  });
  afterAll(() => kith.close());

  const roleId = (name: string): string => {
    const id = roleIds.get(name);
    if (!id) throw new Error(`no role ${name}`);
    return id;
  };

  async function createRole(token: string, body: unknown): Promise<Response> {
    return kith.request("POST", `${BASE}/roles`, { token, json: body });
  }

  async function newRole(permissions: { resource: string; access: string[] }[], scope = "global"): Promise<RoleJson> {
    const response = await createRole(owner.token, { name: `Role ${++serial}`, scope, permissions });
    expect(response.status).toBe(201);
    return (await response.json()) as RoleJson;
  }

  describe("configuration", () => {
    it("lists resources with descriptions, access types and the permission-name mapping", async () => {
      const response = await kith.request("GET", `${BASE}/config`, { token: owner.token });
      expect(response.status).toBe(200);
      const config = await response.json();
      expect(config.accessTypes).toEqual(["Read", "Add", "Modify", "Delete"]);
      expect(config.actions).toEqual({ Read: ["Read"], Manage: ["Add", "Modify", "Delete"], Invite: ["Add"] });
      expect(config.resources).toContainEqual({ name: "Roles", description: expect.any(String), groupScoped: false });
      expect(config.resources).toContainEqual({ name: "GroupMembers", description: expect.any(String), groupScoped: true });
      expect(config.bareName).toMatch(/any access/);
    });

    it("answers 401 without a token and 403 to a plain user", async () => {
      expect((await kith.request("GET", `${BASE}/config`)).status).toBe(401);
      const response = await kith.request("GET", `${BASE}/config`, { token: plain.token });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "auth.forbidden" });
    });
  });

  describe("roles", () => {
    it("lists the built-in roles in the spec's shape, filtered by scope", async () => {
      const response = await kith.request("GET", `${BASE}/roles?scope=global`, { token: admin.token });
      expect(response.status).toBe(200);
      const roles = (await response.json()) as RoleJson[];
      expect(roles.map((role) => role.name)).toEqual(expect.arrayContaining(["Owner", "Admin", "Moderator", "User"]));
      const moderator = roles.find((role) => role.name === "Moderator");
      expect(moderator).toMatchObject({
        roleId: expect.stringMatching(/^ro_/),
        scope: "global",
        builtIn: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(moderator?.permissions).toContainEqual({ resource: "Users", access: ["Read"] });
      await newRole([{ resource: "GroupMembers", access: ["Add"] }], GROUP);
      const grouped = (await (await kith.request("GET", `${BASE}/roles?scope=${GROUP}`, { token: admin.token })).json()) as RoleJson[];
      expect(grouped.length).toBeGreaterThan(0);
      expect(grouped.every((role) => role.scope === GROUP)).toBe(true);
      expect((await kith.request("GET", `${BASE}/roles?scope=nonsense`, { token: admin.token })).status).toBe(422);
    });

    it("creates, reads, updates and deletes a custom role", async () => {
      const created = await createRole(owner.token, {
        name: "Helpers",
        description: "Read reports",
        scope: "global",
        permissions: [{ resource: "Reports", access: ["Read"] }],
      });
      expect(created.status).toBe(201);
      const role = (await created.json()) as RoleJson;
      expect(role).toMatchObject({ name: "Helpers", description: "Read reports", scope: "global", builtIn: false });
      expect(role.permissions).toEqual([{ resource: "Reports", access: ["Read"] }]);

      const fetched = await kith.request("GET", `${BASE}/roles/${role.roleId}`, { token: admin.token });
      expect(await fetched.json()).toEqual(role);

      const updated = await kith.request("PUT", `${BASE}/roles/${role.roleId}`, {
        token: owner.token,
        json: { name: "Reviewers", permissions: [{ resource: "Reports", access: ["Read", "Modify"] }] },
      });
      expect(updated.status).toBe(200);
      expect(await updated.json()).toMatchObject({ name: "Reviewers", permissions: [{ resource: "Reports", access: ["Read", "Modify"] }] });

      const replaced = await kith.request("PUT", `${BASE}/roles/${role.roleId}/permissions`, {
        token: owner.token,
        json: { permissions: [{ resource: "Signups", access: ["Delete", "Read"] }] },
      });
      expect(replaced.status).toBe(200);
      expect(((await replaced.json()) as RoleJson).permissions).toEqual([{ resource: "Signups", access: ["Read", "Delete"] }]);

      expect((await kith.request("DELETE", `${BASE}/roles/${role.roleId}`, { token: owner.token })).status).toBe(204);
      expect((await kith.request("GET", `${BASE}/roles/${role.roleId}`, { token: owner.token })).status).toBe(404);
    });

    it("refuses unknown resources, unknown access types and non-group resources in a group's role (422)", async () => {
      const bad = [
        { name: "X1", scope: "global", permissions: [{ resource: "Nuclear", access: ["Read"] }] },
        { name: "X2", scope: "global", permissions: [{ resource: "Reports", access: ["Launch"] }] },
        { name: "X3", scope: "global", permissions: [{ resource: "Reports", access: [] }] },
        { name: "X4", scope: GROUP, permissions: [{ resource: "Users", access: ["Read"] }] },
        { name: "X5", scope: "everywhere", permissions: [] },
        { name: " ", scope: "global", permissions: [] },
      ];
      for (const body of bad) {
        const response = await createRole(owner.token, body);
        expect(response.status, JSON.stringify(body)).toBe(422);
      }
      expect((await createRole(owner.token, { permissions: [] })).status).toBe(400);
      await newRole([]);
      const duplicate = await createRole(owner.token, { name: `role ${serial}`, scope: "global", permissions: [] });
      expect(duplicate.status).toBe(422);
    });

    it("refuses to rename or delete built-in roles (409), and to change the Owner's permissions", async () => {
      const rename = await kith.request("PUT", `${BASE}/roles/${roleId("Moderator")}`, { token: owner.token, json: { name: "Mods" } });
      expect(rename.status).toBe(409);
      expect((await kith.request("DELETE", `${BASE}/roles/${roleId("User")}`, { token: owner.token })).status).toBe(409);
      const strip = await kith.request("PUT", `${BASE}/roles/${roleId("Owner")}/permissions`, {
        token: owner.token,
        json: { permissions: [] },
      });
      expect(strip.status).toBe(409);
      const describe = await kith.request("PUT", `${BASE}/roles/${roleId("Moderator")}`, {
        token: owner.token,
        json: { name: "Moderator", description: "Keeps the peace" },
      });
      expect(describe.status).toBe(200);
      expect(await describe.json()).toMatchObject({ name: "Moderator", description: "Keeps the peace" });
    });

    it("lets Roles.Read callers read but not change (403), and answers 404 for unknown roles", async () => {
      expect((await createRole(admin.token, { name: "Nope", scope: "global", permissions: [] })).status).toBe(403);
      expect((await kith.request("DELETE", `${BASE}/roles/${roleId("Moderator")}`, { token: admin.token })).status).toBe(403);
      expect((await createRole(plain.token, { name: "Nope", scope: "global", permissions: [] })).status).toBe(403);
      expect((await kith.request("GET", `${BASE}/roles/ro_unknown`, { token: admin.token })).status).toBe(404);
      expect((await kith.request("POST", `${BASE}/roles`, { json: {} })).status).toBe(401);
    });
  });

  describe("assignments", () => {
    it("assigns a role (idempotently), lists assignments both ways, and unassigns it", async () => {
      const user = await kith.createUser(`assignee${++serial}`);
      const role = await newRole([{ resource: "Users", access: ["Read"] }]);
      // Before: no Users.Read.
      expect((await kith.request("GET", "/api/v1/admin/accounts", { token: user.token })).status).toBe(403);

      const first = await kith.request("POST", `${BASE}/actors/${user.account.id}/roles`, {
        token: owner.token,
        json: { roleId: role.roleId },
      });
      expect(first.status).toBe(200);
      const assignment = (await first.json()) as ActorRoleJson;
      expect(assignment).toEqual({
        actorId: user.account.id,
        roleId: role.roleId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      kith.clock.advance(5_000);
      const again = await kith.request("POST", `${BASE}/actors/${user.account.id}/roles`, {
        token: owner.token,
        json: { roleId: role.roleId },
      });
      expect(await again.json()).toEqual(assignment);

      // The grant takes effect on the next request of an existing token.
      expect((await kith.request("GET", "/api/v1/admin/accounts", { token: user.token })).status).toBe(200);

      const actors = (await (
        await kith.request("GET", `${BASE}/roles/${role.roleId}/actors`, { token: admin.token })
      ).json()) as ActorRoleJson[];
      expect(actors).toEqual([assignment]);
      const held = (await (
        await kith.request("GET", `${BASE}/actors/${user.account.id}/roles`, { token: admin.token })
      ).json()) as ActorRoleJson[];
      expect(held.map((entry) => entry.roleId)).toEqual(expect.arrayContaining([roleId("User"), role.roleId]));

      const removed = await kith.request("DELETE", `${BASE}/actors/${user.account.id}/roles/${role.roleId}`, { token: owner.token });
      expect(removed.status).toBe(204);
      expect((await kith.request("GET", "/api/v1/admin/accounts", { token: user.token })).status).toBe(403);
      expect((await kith.request("DELETE", `${BASE}/actors/${user.account.id}/roles/${role.roleId}`, { token: owner.token })).status).toBe(
        404,
      );
    });

    it("answers 404 for unknown actors or roles, 400 without a roleId, 403 to plain users", async () => {
      const user = await kith.createUser(`assignee${++serial}`);
      const unknownActor = await kith.request("POST", `${BASE}/actors/us_unknown/roles`, {
        token: owner.token,
        json: { roleId: roleId("User") },
      });
      expect(unknownActor.status).toBe(404);
      const unknownRole = await kith.request("POST", `${BASE}/actors/${user.account.id}/roles`, {
        token: owner.token,
        json: { roleId: "ro_nope" },
      });
      expect(unknownRole.status).toBe(404);
      expect((await kith.request("POST", `${BASE}/actors/${user.account.id}/roles`, { token: owner.token, json: {} })).status).toBe(400);
      expect((await kith.request("GET", `${BASE}/actors/us_unknown/roles`, { token: owner.token })).status).toBe(404);
      const byPlain = await kith.request("POST", `${BASE}/actors/${plain.account.id}/roles`, {
        token: plain.token,
        json: { roleId: roleId("Owner") },
      });
      expect(byPlain.status).toBe(403);
    });

    it("refuses to take the Owner role from the server's last Owner (409), but not from one of two", async () => {
      const ownerRole = roleId("Owner");
      const last = await kith.request("DELETE", `${BASE}/actors/${owner.account.id}/roles/${ownerRole}`, { token: owner.token });
      expect(last.status).toBe(409);
      expect(await last.json()).toMatchObject({ code: "role.last_owner" });

      const second = await kith.createUser(`owner${++serial}`);
      await kith.request("POST", `${BASE}/actors/${second.account.id}/roles`, { token: owner.token, json: { roleId: ownerRole } });
      const removed = await kith.request("DELETE", `${BASE}/actors/${second.account.id}/roles/${ownerRole}`, { token: owner.token });
      expect(removed.status).toBe(204);
    });
  });

  describe("privilege escalation guard", () => {
    let manager: TestUser;

    beforeAll(async () => {
      // Roles.Manage and Users.Read, nothing else.
      manager = await kith.createUser("rbac_manager");
      await giveGrants(kith, manager.account.id, [
        { resource: "Roles", access: ["Read", "Add", "Modify", "Delete"], scope: "global" },
        { resource: "Users", access: ["Read"], scope: "global" },
      ]);
    });

    it("lets a manager create and grant roles within their own permissions", async () => {
      const created = await createRole(manager.token, {
        name: "Readers",
        scope: "global",
        permissions: [{ resource: "Users", access: ["Read"] }],
      });
      expect(created.status).toBe(201);
      const role = (await created.json()) as RoleJson;
      const assigned = await kith.request("POST", `${BASE}/actors/${plain.account.id}/roles`, {
        token: manager.token,
        json: { roleId: role.roleId },
      });
      expect(assigned.status).toBe(200);
      await kith.request("DELETE", `${BASE}/actors/${plain.account.id}/roles/${role.roleId}`, { token: manager.token });
    });

    it("refuses roles, permissions and grants beyond the manager's own (403)", async () => {
      const wider = await createRole(manager.token, {
        name: "Wider",
        scope: "global",
        permissions: [{ resource: "Jobs", access: ["Read"] }],
      });
      expect(wider.status).toBe(403);
      expect(await wider.json()).toMatchObject({ code: "role.escalation" });
      const more = await createRole(manager.token, {
        name: "More",
        scope: "global",
        permissions: [{ resource: "Users", access: ["Read", "Delete"] }],
      });
      expect(more.status).toBe(403);

      const selfPromotion = await kith.request("POST", `${BASE}/actors/${manager.account.id}/roles`, {
        token: manager.token,
        json: { roleId: roleId("Admin") },
      });
      expect(selfPromotion.status).toBe(403);

      const own = (await (
        await kith.request("GET", `${BASE}/actors/${manager.account.id}/roles`, { token: manager.token })
      ).json()) as ActorRoleJson[];
      const custom = own.find((entry) => entry.roleId !== roleId("User"));
      expect(custom).toBeDefined();
      const widen = await kith.request("PUT", `${BASE}/roles/${custom?.roleId}/permissions`, {
        token: manager.token,
        json: {
          permissions: [
            { resource: "Roles", access: ["Read", "Add", "Modify", "Delete"] },
            { resource: "Users", access: ["Read", "Add", "Modify", "Delete"] },
          ],
        },
      });
      expect(widen.status).toBe(403);

      // Taking away or deleting a role beyond one's own is refused too.
      expect(
        (await kith.request("DELETE", `${BASE}/actors/${admin.account.id}/roles/${roleId("Admin")}`, { token: manager.token })).status,
      ).toBe(403);
      const jobs = await newRole([{ resource: "Jobs", access: ["Read"] }]);
      expect((await kith.request("DELETE", `${BASE}/roles/${jobs.roleId}`, { token: manager.token })).status).toBe(403);
    });

    it("counts group grants toward a role of that group only", async () => {
      const groupManager = await kith.createUser("rbac_group_manager");
      await giveGrants(kith, groupManager.account.id, [
        { resource: "Roles", access: ["Read", "Add", "Modify", "Delete"], scope: "global" },
        { resource: "GroupMembers", access: ["Read", "Add"], scope: GROUP },
      ]);
      const inGroup = await createRole(groupManager.token, {
        name: "Inviters",
        scope: GROUP,
        permissions: [{ resource: "GroupMembers", access: ["Add"] }],
      });
      expect(inGroup.status).toBe(201);
      const elsewhere = await createRole(groupManager.token, {
        name: "Inviters",
        scope: OTHER_GROUP,
        permissions: [{ resource: "GroupMembers", access: ["Add"] }],
      });
      expect(elsewhere.status).toBe(403);
    });
  });

  describe("group-scoped roles", () => {
    it("grant only inside their group, and only to its members", async () => {
      const member = await kith.createUser(`member${++serial}`);
      const group = await createGroup(kith, owner.token);
      const role = await newRole([{ resource: "GroupMembers", access: ["Add"] }], group.id);
      const assign = () =>
        kith.request("POST", `${BASE}/actors/${member.account.id}/roles`, { token: owner.token, json: { roleId: role.roleId } });
      // A group's roles are held by its members only.
      const refused = await assign();
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ code: "group.role_needs_membership" });
      expect((await kith.request("POST", `/api/v1/groups/${group.id}/join`, { token: member.token })).status).toBe(200);
      expect((await assign()).status).toBe(200);

      const caller = (await kith.services.sessions.authenticate(member.token)) as UserCaller;
      const grants = await caller.grants();
      const invite = any("GroupMembers.Invite");
      expect(ruleHolds(invite, grants, group.id)).toBe(true);
      expect(ruleHolds(invite, grants, OTHER_GROUP)).toBe(false);
      expect(ruleHolds(invite, grants, null)).toBe(false);
      expect(ruleHolds(any("GroupMembers.Manage"), grants, group.id)).toBe(false);
    });
  });
});
