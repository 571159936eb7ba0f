/** A group's members, their removal and bans, and the group's roles run through RBAC's group scope. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { type GroupJson, call, createGroup } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

const RBAC = "/api/v1/admin/rbac";

describeOnEngines("group members and roles", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`mb${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("mowner");
  });
  afterAll(() => kith.close());

  const join = async (group: { id: string }, user: TestUser) => {
    const joined = await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token);
    expect(joined.status).toBe(200);
  };
  const groupAs = async (group: { id: string }, user?: TestUser): Promise<GroupJson> =>
    (await call(kith, "GET", `/api/v1/groups/${group.id}`, user?.token)).body;

  /** The id of the group's role of that name. */
  async function roleOf(groupId: string, name: string): Promise<string> {
    const roles = await call(kith, "GET", `${RBAC}/roles?scope=${groupId}`, owner.token);
    expect(roles.status).toBe(200);
    return roles.body.find((role: { name: string }) => role.name === name).roleId;
  }

  async function assign(groupId: string, actor: TestUser, user: TestUser, roleName: string) {
    return call(kith, "POST", `${RBAC}/actors/${user.account.id}/roles?scope=${groupId}`, actor.token, { roleId: await roleOf(groupId, roleName) });
  }

  /** A group of `owner`'s with a moderator and two members. */
  async function staffedGroup() {
    const group = await createGroup(kith, owner.token);
    const moderator = await freshUser();
    const alice = await freshUser();
    const bob = await freshUser();
    for (const user of [moderator, alice, bob]) await join(group, user);
    expect((await assign(group.id, owner, moderator, "Moderator")).status).toBe(200);
    return { group, moderator, alice, bob };
  }

  describe("members", () => {
    it("are listed the latest first, each with the group's roles it holds, and paged", async () => {
      const { group, moderator, alice, bob } = await staffedGroup();
      const listed = await call(kith, "GET", `/api/v1/groups/${group.id}/members`);
      expect(listed.status).toBe(200);
      expect(listed.body.map((member: { account: { id: string } }) => member.account.id)).toEqual([
        bob.account.id,
        alice.account.id,
        moderator.account.id,
        owner.account.id,
      ]);
      const rolesOf = (id: string) =>
        listed.body.find((member: { account: { id: string } }) => member.account.id === id).roles.map((role: { name: string }) => role.name);
      expect(rolesOf(owner.account.id)).toEqual(["Owner", "Member"]);
      expect(rolesOf(moderator.account.id)).toEqual(["Moderator", "Member"]);
      expect(rolesOf(alice.account.id)).toEqual(["Member"]);
      expect(listed.body[0]).toEqual({ id: expect.stringMatching(/^gm_/), account: expect.any(Object), joined_at: expect.any(String), roles: expect.any(Array) });

      const first = await kith.request("GET", `/api/v1/groups/${group.id}/members?limit=3`);
      expect(((await first.json()) as unknown[]).length).toBe(3);
      const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1] ?? "");
      const rest = (await (await kith.request("GET", next.pathname + next.search)).json()) as { account: { id: string } }[];
      expect(rest.map((member) => member.account.id)).toEqual([owner.account.id]);
    });

    it("are removed by GroupMembers.Manage holders, and lose their roles", async () => {
      const { group, moderator, alice } = await staffedGroup();
      const removed = await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${alice.account.id}`, moderator.token);
      expect(removed).toEqual({ status: 200, body: {} });
      expect((await groupAs(group, alice)).membership).toMatchObject({ member: false, roles: [] });
      expect((await groupAs(group)).members_count).toBe(3);
      expect((await call(kith, "GET", `${RBAC}/actors/${alice.account.id}/roles?scope=${group.id}`, owner.token)).body).toEqual([]);
      const again = await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${alice.account.id}`, moderator.token);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe("group.member_not_found");
      // A removed member may join an open group again.
      await join(group, alice);
    });

    it("refuses removal to those without GroupMembers.Manage in the group (401, 403), of oneself (422), and of a member who outranks the remover (403)", async () => {
      const { group, moderator, alice, bob } = await staffedGroup();
      const path = (user: TestUser) => `/api/v1/groups/${group.id}/members/${user.account.id}`;
      expect((await call(kith, "DELETE", path(bob))).status).toBe(401);
      expect((await call(kith, "DELETE", path(bob), alice.token)).status).toBe(403);
      const elsewhere = await freshUser();
      const other = await createGroup(kith, elsewhere.token);
      expect(other.membership?.roles.map((role) => role.name)).toContain("Owner");
      expect((await call(kith, "DELETE", path(bob), elsewhere.token)).status).toBe(403);

      const self = await call(kith, "DELETE", path(moderator), moderator.token);
      expect(self.status).toBe(422);
      expect(self.body.code).toBe("group.cannot_target_self");
      const outranked = await call(kith, "DELETE", path(owner), moderator.token);
      expect(outranked.status).toBe(403);
      expect(outranked.body.code).toBe("group.outranked");
      expect((await groupAs(group, owner)).membership?.member).toBe(true);
    });
  });

  it("stop counting a member whose account the server removes", async () => {
    const { group, alice } = await staffedGroup();
    const admin = await kith.createUser(`mdeleter${++serial}`, { role: "Admin" });
    const accounts = "/api/v1/admin/accounts";
    expect((await call(kith, "POST", `${accounts}/${alice.account.id}/action`, admin.token, { type: "suspend" })).status).toBe(200);
    expect((await call(kith, "DELETE", `${accounts}/${alice.account.id}`, admin.token)).status).toBe(200);
    expect((await groupAs(group)).members_count).toBe(3);
    const listed = (await call(kith, "GET", `/api/v1/groups/${group.id}/members`)).body as { account: { id: string } }[];
    expect(listed.map((member) => member.account.id)).not.toContain(alice.account.id);
  });

  describe("bans", () => {
    it("remove the member, and refuse rejoining, invitations and answers until lifted", async () => {
      const { group, moderator, alice } = await staffedGroup();
      const banned = await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, moderator.token, { reason: "Spam" });
      expect(banned.status).toBe(200);
      expect(banned.body).toEqual({ account: expect.objectContaining({ id: alice.account.id }), reason: "Spam", created_at: expect.any(String) });
      expect((await groupAs(group, alice)).membership?.member).toBe(false);
      expect((await groupAs(group)).members_count).toBe(3);

      const rejoin = await call(kith, "POST", `/api/v1/groups/${group.id}/join`, alice.token);
      expect(rejoin.status).toBe(403);
      expect(rejoin.body.code).toBe("group.banned");
      const invite = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: alice.account.id });
      expect(invite.status).toBe(409);
      expect(invite.body.code).toBe("group.invitee_banned");
      await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { join_mode: "QUESTIONS" });
      const answers = await call(kith, "POST", `/api/v1/groups/${group.id}/questions/answers`, alice.token, { answers: [] });
      expect(answers.status).toBe(403);
      expect(answers.body.code).toBe("group.banned");
      await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { join_mode: "OPEN" });

      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/bans`, moderator.token)).body).toMatchObject([{ account: { id: alice.account.id } }]);
      const twice = await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, moderator.token);
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe("group.already_banned");

      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, moderator.token)).status).toBe(200);
      const liftedAgain = await call(kith, "DELETE", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, moderator.token);
      expect(liftedAgain.status).toBe(404);
      expect(liftedAgain.body.code).toBe("group.ban_not_found");
      await join(group, alice);
    });

    it("reject the banned account's join request and withdraw its invitation", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const requester = await freshUser();
      const invitee = await freshUser();
      await call(kith, "POST", `/api/v1/groups/${group.id}/join`, requester.token);
      await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: invitee.account.id });
      for (const user of [requester, invitee]) {
        expect((await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${user.account.id}`, owner.token)).status).toBe(200);
      }
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests?status=rejected`, owner.token)).body).toHaveLength(1);
      expect((await call(kith, "GET", "/api/v1/group_invitations", invitee.token)).body).toEqual([]);
    });

    it("need GroupMembers.Manage in the group (401, 403), an account that exists (404), and a target below the banner", async () => {
      const { group, moderator, alice, bob } = await staffedGroup();
      const path = (user: TestUser) => `/api/v1/groups/${group.id}/bans/${user.account.id}`;
      expect((await call(kith, "POST", path(bob))).status).toBe(401);
      expect((await call(kith, "POST", path(bob), alice.token)).status).toBe(403);
      expect((await call(kith, "DELETE", path(bob), alice.token)).status).toBe(403);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/bans`, alice.token)).status).toBe(403);
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/bans/us_00000000000000000000000000`, moderator.token)).status).toBe(404);
      expect((await call(kith, "POST", path(owner), moderator.token)).body.code).toBe("group.outranked");
      expect((await call(kith, "POST", path(moderator), moderator.token)).body.code).toBe("group.cannot_target_self");
      expect((await call(kith, "POST", path(bob), moderator.token, { reason: 7 })).status).toBe(400);
    });
  });

  describe("the group's roles, through RBAC's group scope", () => {
    it("let a group admin manage its group's roles and assignments without any global role", async () => {
      const { group, alice, bob } = await staffedGroup();
      expect((await assign(group.id, owner, alice, "Admin")).status).toBe(200);
      const created = await call(kith, "POST", `${RBAC}/roles`, alice.token, {
        name: "Inviters",
        scope: group.id,
        permissions: [{ resource: "GroupMembers", access: ["Add"] }],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ scope: group.id, builtIn: false });
      const given = await call(kith, "POST", `${RBAC}/actors/${bob.account.id}/roles?scope=${group.id}`, alice.token, { roleId: created.body.roleId });
      expect(given.status).toBe(200);
      const target = await freshUser();
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, bob.token, { account_id: target.account.id })).status).toBe(200);
      expect((await call(kith, "GET", `${RBAC}/roles/${created.body.roleId}/actors?scope=${group.id}`, alice.token)).body).toMatchObject([
        { actorId: bob.account.id },
      ]);
      const renamed = await call(kith, "PUT", `${RBAC}/roles/${created.body.roleId}?scope=${group.id}`, alice.token, { name: "Greeters" });
      expect(renamed.body.name).toBe("Greeters");
      expect((await call(kith, "DELETE", `${RBAC}/actors/${bob.account.id}/roles/${created.body.roleId}?scope=${group.id}`, alice.token)).status).toBe(204);
      expect((await call(kith, "DELETE", `${RBAC}/roles/${created.body.roleId}?scope=${group.id}`, alice.token)).status).toBe(204);
      // The built-in roles of the group stay.
      const builtIn = await call(kith, "DELETE", `${RBAC}/roles/${await roleOf(group.id, "Moderator")}?scope=${group.id}`, alice.token);
      expect(builtIn.status).toBe(409);
    });

    it("confine a group's admins to their group: not the server's roles, not another group's", async () => {
      const { group, alice } = await staffedGroup();
      await assign(group.id, owner, alice, "Admin");
      const other = await createGroup(kith, owner.token);
      const otherRole = await roleOf(other.id, "Member");
      expect((await call(kith, "GET", `${RBAC}/roles`, alice.token)).status).toBe(403);
      expect((await call(kith, "GET", `${RBAC}/roles?scope=global`, alice.token)).status).toBe(403);
      expect((await call(kith, "POST", `${RBAC}/roles`, alice.token, { name: "Global", permissions: [] })).status).toBe(403);
      expect((await call(kith, "GET", `${RBAC}/roles?scope=${other.id}`, alice.token)).status).toBe(403);
      // A role of another scope, named within this group, does not exist there.
      const hidden = await call(kith, "GET", `${RBAC}/roles/${otherRole}?scope=${group.id}`, alice.token);
      expect(hidden.status).toBe(404);
      const foreign = await call(kith, "POST", `${RBAC}/actors/${alice.account.id}/roles?scope=${group.id}`, alice.token, { roleId: otherRole });
      expect(foreign.status).toBe(404);
      const mismatch = await call(kith, "GET", `${RBAC}/roles?scope=${group.id}`, alice.token);
      expect(mismatch.body.every((role: { scope: string }) => role.scope === group.id)).toBe(true);
    });

    it("refuse a global GroupRoles grant the server's roles: it manages groups' roles only", async () => {
      const user = await freshUser();
      await giveGrants(kith, user.account.id, [{ resource: "GroupRoles", access: ["Read", "Add", "Modify", "Delete"], scope: "global" }]);
      expect((await call(kith, "GET", `${RBAC}/roles`, user.token)).status).toBe(403);
      expect((await call(kith, "GET", `${RBAC}/config`, user.token)).status).toBe(403);
      const group = await createGroup(kith, owner.token);
      expect((await call(kith, "GET", `${RBAC}/roles?scope=${group.id}`, user.token)).status).toBe(200);
    });

    it("give a group's roles to its members only, and owners only by owners", async () => {
      const { group, alice, bob } = await staffedGroup();
      const outsider = await freshUser();
      const refused = await assign(group.id, owner, outsider, "Moderator");
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("group.role_needs_membership");

      await assign(group.id, owner, alice, "Admin");
      const escalation = await assign(group.id, alice, bob, "Owner");
      expect(escalation.status).toBe(403);
      expect(escalation.body.code).toBe("role.escalation");
      expect((await assign(group.id, owner, bob, "Owner")).status).toBe(200);
      // With a second owner, the first may leave; then the last owner may not lose the role, nor leave, nor be removed.
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, owner.token)).status).toBe(200);
      // Leaving took the group's roles with it: the former owner may not read them any more.
      expect((await call(kith, "GET", `${RBAC}/roles?scope=${group.id}`, owner.token)).status).toBe(403);
      const roles = await call(kith, "GET", `${RBAC}/roles?scope=${group.id}`, bob.token);
      const owners = roles.body.find((role: { name: string }) => role.name === "Owner").roleId;
      const lastRole = await call(kith, "DELETE", `${RBAC}/actors/${bob.account.id}/roles/${owners}?scope=${group.id}`, bob.token);
      expect(lastRole.status).toBe(409);
      expect(lastRole.body.code).toBe("role.last_owner");
      const lastLeave = await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, bob.token);
      expect(lastLeave.body.code).toBe("group.last_owner");
      const serverAdmin = await kith.createUser(`madmin${++serial}`, { role: "Admin" });
      const lastRemoved = await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${bob.account.id}`, serverAdmin.token);
      expect(lastRemoved.status).toBe(409);
      expect(lastRemoved.body.code).toBe("group.last_owner");
    });

    it("count only in their own group: a manager of one group is refused in another", async () => {
      const first = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const manager = await freshUser();
      const second = await createGroup(kith, manager.token, { join_mode: "APPROVAL" });
      const requester = await freshUser();
      await call(kith, "POST", `/api/v1/groups/${first.id}/join`, requester.token);
      const [request] = (await call(kith, "GET", `/api/v1/groups/${first.id}/join_requests`, owner.token)).body;
      expect((await call(kith, "GET", `/api/v1/groups/${second.id}/join_requests`, manager.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/groups/${first.id}/join_requests`, manager.token)).status).toBe(403);
      expect((await call(kith, "POST", `/api/v1/groups/${first.id}/join_requests/${request.id}/approve`, manager.token)).status).toBe(403);
    });
  });
});
