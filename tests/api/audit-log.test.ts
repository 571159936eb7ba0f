/**
 * The moderation audit log: what each kind of moderation action leaves in it
 * (account actions with their text, domain blocks, role changes, group bans
 * and removals), its pages and filters, and who may read which entries: the
 * server's log by resource (Users, Federation, Roles, Reports), a group's by
 * the group's own grants, a secret group hidden from those outside it.
 */
import type { AccessType } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditModule } from "../../packages/core/src/modules/audit/index.js";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

const LOG = "/api/v1/admin/audit_log";
const RBAC = "/api/v1/admin/rbac";
const ACCOUNTS = "/api/v1/admin/accounts";
const ALL: AccessType[] = ["Read", "Add", "Modify", "Delete"];

interface Entry {
  id: string;
  action: string;
  actor: { id: string; username: string } | null;
  actor_id: string | null;
  target_type: string;
  target_id: string;
  scope: string | null;
  text: string | null;
  created_at: string;
}

describeOnEngines("moderation audit log", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let admin: TestUser;
  let moderator: TestUser;
  let plain: TestUser;
  let serial = 0;
  const fresh = (prefix = "au") => kith.createUser(`${prefix}${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("audit_owner", { role: "Owner" });
    admin = await kith.createUser("audit_admin", { role: "Admin" });
    moderator = await kith.createUser("audit_moderator", { role: "Moderator" });
    plain = await kith.createUser("audit_plain");
  });
  afterAll(() => kith.close());

  async function read(path: string, token: string): Promise<Entry[]> {
    const response = await kith.request("GET", path, { token });
    expect(response.status).toBe(200);
    return (await response.json()) as Entry[];
  }
  const logOf = (query: Record<string, string>, token = owner.token) => read(`${LOG}?${new URLSearchParams(query)}`, token);
  const actions = (entries: readonly Entry[]) => entries.map((entry) => entry.action);

  describe("what is recorded", () => {
    it("records an account action with who took it, on whom and with what text", async () => {
      const target = await fresh();
      const suspended = await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, admin.token, {
        type: "suspend",
        text: "Spam from a fresh account",
      });
      expect(suspended.status).toBe(200);
      expect((await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/unsuspend`, admin.token)).status).toBe(200);
      expect(
        (await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, admin.token, { type: "none", text: "Be nice" })).status,
      ).toBe(200);

      const entries = await logOf({ target_id: target.account.id });
      expect(actions(entries)).toEqual(["account.warn", "account.unsuspend", "account.suspend"]);
      expect(entries[2]).toEqual({
        id: expect.stringMatching(/^au_/),
        action: "account.suspend",
        actor: expect.objectContaining({ id: admin.account.id, username: "audit_admin" }),
        actor_id: admin.account.id,
        target_type: "account",
        target_id: target.account.id,
        scope: null,
        text: "Spam from a fresh account",
        created_at: expect.any(String),
      });
      expect(entries[1]?.text).toBeNull();
      expect(entries[0]?.text).toBe("Be nice");
    });

    it("records approvals and rejections of pending accounts, and removals, by whom", async () => {
      const pending = async () =>
        (
          await kith.services.accounts.createLocalAccount({
            username: `pend${++serial}`,
            email: `pend${serial}@example.com`,
            approved: false,
          })
        ).account.id;
      const [approved, rejected] = [await pending(), await pending()];
      expect((await call(kith, "POST", `${ACCOUNTS}/${approved}/approve`, admin.token)).status).toBe(200);
      expect((await call(kith, "POST", `${ACCOUNTS}/${rejected}/reject`, admin.token)).status).toBe(200);
      // Approving again is refused (409), and adds nothing.
      expect((await call(kith, "POST", `${ACCOUNTS}/${approved}/approve`, admin.token)).status).toBe(409);
      expect(await logOf({ target_id: approved })).toMatchObject([{ action: "account.approve", actor_id: admin.account.id }]);
      expect(await logOf({ target_id: rejected })).toMatchObject([{ action: "account.reject", actor_id: admin.account.id }]);

      const removed = await fresh();
      await call(kith, "POST", `${ACCOUNTS}/${removed.account.id}/action`, admin.token, { type: "suspend" });
      expect((await call(kith, "DELETE", `${ACCOUNTS}/${removed.account.id}`, admin.token)).status).toBe(200);
      // The account is gone; what was done to it stays.
      expect(actions(await logOf({ target_id: removed.account.id }))).toEqual(["account.delete", "account.suspend"]);
    });

    it("records nothing for an action that was refused", async () => {
      const target = await fresh();
      // Acting on oneself is refused (409): the log keeps what was done, not what was tried.
      expect((await call(kith, "POST", `${ACCOUNTS}/${admin.account.id}/action`, admin.token, { type: "silence" })).status).not.toBe(200);
      expect((await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, plain.token, { type: "silence" })).status).toBe(403);
      expect(await logOf({ target_id: admin.account.id, action: "account.silence" })).toEqual([]);
      expect(await logOf({ target_id: target.account.id })).toEqual([]);
    });

    it("records domain blocks and allows by the domain's name, with their severity and private comment", async () => {
      const created = await call(kith, "POST", "/api/v1/admin/domain_blocks", admin.token, {
        domain: "spam.example",
        severity: "suspend",
        private_comment: "a bot farm",
      });
      expect(created.status).toBe(200);
      expect((await call(kith, "PUT", `/api/v1/admin/domain_blocks/${created.body.id}`, admin.token, { severity: "silence" })).status).toBe(
        200,
      );
      expect((await call(kith, "DELETE", `/api/v1/admin/domain_blocks/${created.body.id}`, admin.token)).status).toBe(200);
      const allowed = await call(kith, "POST", "/api/v1/admin/domain_allows", admin.token, { domain: "friends.example" });
      expect(allowed.status).toBe(200);

      const entries = await logOf({ target_type: "domain", target_id: "spam.example" });
      expect(entries.map(({ action, text, actor_id, scope }) => ({ action, text, actor_id, scope }))).toEqual([
        { action: "domain_block.delete", text: "LIMIT: a bot farm", actor_id: admin.account.id, scope: null },
        { action: "domain_block.update", text: "LIMIT: a bot farm", actor_id: admin.account.id, scope: null },
        { action: "domain_block.create", text: "SUSPEND: a bot farm", actor_id: admin.account.id, scope: null },
      ]);
      expect(actions(await logOf({ target_id: "friends.example" }))).toEqual(["domain_allow.create"]);
    });

    it("records a block made by the server itself with no actor", async () => {
      await kith.services.domainPolicy.createBlock({ domain: "quiet.example", severity: "NOOP" });
      const [entry] = await logOf({ target_id: "quiet.example" });
      expect(entry).toMatchObject({ action: "domain_block.create", actor: null, actor_id: null, text: "NOOP" });
    });

    it("records role changes: made, changed, given, taken and deleted, and an account's role set", async () => {
      const helper = await fresh();
      const made = await call(kith, "POST", `${RBAC}/roles`, owner.token, {
        name: "Helpers",
        permissions: [{ resource: "Reports", access: ["Read"] }],
      });
      expect(made.status).toBe(201);
      const roleId = made.body.roleId as string;
      expect((await call(kith, "PUT", `${RBAC}/roles/${roleId}`, owner.token, { description: "They help" })).status).toBe(200);
      expect((await call(kith, "POST", `${RBAC}/actors/${helper.account.id}/roles`, owner.token, { roleId })).status).toBe(200);
      // Given again: nothing changes, nothing is recorded.
      expect((await call(kith, "POST", `${RBAC}/actors/${helper.account.id}/roles`, owner.token, { roleId })).status).toBe(200);
      expect((await call(kith, "DELETE", `${RBAC}/actors/${helper.account.id}/roles/${roleId}`, owner.token)).status).toBe(204);
      expect((await call(kith, "DELETE", `${RBAC}/roles/${roleId}`, owner.token)).status).toBe(204);

      const ofRole = await logOf({ target_type: "role", target_id: roleId });
      expect(ofRole.map(({ action, text, actor_id }) => ({ action, text, actor_id }))).toEqual([
        { action: "role.delete", text: "Helpers", actor_id: owner.account.id },
        { action: "role.update", text: "Helpers", actor_id: owner.account.id },
        { action: "role.create", text: "Helpers", actor_id: owner.account.id },
      ]);
      expect(actions(await logOf({ target_id: helper.account.id, action: "role" }))).toEqual(["role.unassign", "role.assign"]);

      expect((await call(kith, "PUT", `${ACCOUNTS}/${helper.account.id}/role`, admin.token, { role: "Moderator" })).status).toBe(200);
      const [set] = await logOf({ target_id: helper.account.id, action: "role.assign" });
      expect(set).toMatchObject({ action: "role.assign", actor_id: admin.account.id, target_type: "account", text: "Moderator" });
    });

    it("writes an entry in the caller's transaction: it commits with the action, or not at all", async () => {
      const log = kith.module(auditModule).log;
      const entry = {
        actorId: owner.account.id,
        action: "report.resolve",
        resource: "Reports",
        targetType: "report",
        targetId: "rp_in_a_transaction",
        text: "Handled",
      } as const;
      await expect(
        kith.storage.transaction(async (trx) => {
          await log.record(entry, trx);
          throw new Error("the action failed");
        }),
      ).rejects.toThrow("the action failed");
      expect(await logOf({ target_id: "rp_in_a_transaction" })).toEqual([]);
      await kith.storage.transaction((trx) => log.record(entry, trx));
      expect(await logOf({ target_id: "rp_in_a_transaction" })).toMatchObject([{ action: "report.resolve", text: "Handled", scope: null }]);
    });
  });

  describe("pages and filters", () => {
    let target: TestUser;
    beforeAll(async () => {
      target = await fresh("paged");
      for (const text of ["one", "two", "three", "four", "five"]) {
        const warned = await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, admin.token, { type: "none", text });
        expect(warned.status).toBe(200);
      }
      expect((await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, owner.token, { type: "sensitive" })).status).toBe(200);
    });

    it("pages newest first with Link headers that lead to the rest", async () => {
      const path = `${LOG}?target_id=${target.account.id}&limit=4`;
      const first = await kith.request("GET", path, { token: owner.token });
      const firstPage = (await first.json()) as Entry[];
      expect(firstPage.map((entry) => entry.text)).toEqual([null, "five", "four", "three"]);
      const link = first.headers.get("link") ?? "";
      const next = new URL(/<([^>]+)>; rel="next"/.exec(link)?.[1] ?? "");
      expect(next.searchParams.get("target_id")).toBe(target.account.id);
      expect(next.searchParams.get("max_id")).toBe(firstPage[3]?.id);
      const rest = await read(next.pathname + next.search, owner.token);
      expect(rest.map((entry) => entry.text)).toEqual(["two", "one"]);

      const prev = new URL(/<([^>]+)>; rel="prev"/.exec(link)?.[1] ?? "");
      expect(prev.searchParams.get("min_id")).toBe(firstPage[0]?.id);
      expect(await read(prev.pathname + prev.search, owner.token)).toEqual([]);

      const oldest = rest[1]?.id ?? "";
      const above = await logOf({ target_id: target.account.id, min_id: oldest, limit: "2" });
      expect(above.map((entry) => entry.text)).toEqual(["three", "two"]);
      const newest = await logOf({ target_id: target.account.id, since_id: oldest, limit: "2" });
      expect(newest.map((entry) => entry.text)).toEqual([null, "five"]);
    });

    it("filters by action or its start up to a dot, by actor and by target type", async () => {
      const byTarget = { target_id: target.account.id };
      expect(await logOf({ ...byTarget, action: "account.warn" })).toHaveLength(5);
      expect(actions(await logOf({ ...byTarget, action: "account" }))).toEqual(["account.sensitive", ...Array(5).fill("account.warn")]);
      // A start of a verb that stops inside a word finds nothing: `acc` is not `account.`.
      expect(await logOf({ ...byTarget, action: "acc" })).toEqual([]);
      expect(await logOf({ ...byTarget, action: "account.war" })).toEqual([]);
      expect(actions(await logOf({ ...byTarget, actor_id: owner.account.id }))).toEqual(["account.sensitive"]);
      expect(await logOf({ ...byTarget, actor_id: admin.account.id })).toHaveLength(5);
      expect(await logOf({ ...byTarget, target_type: "domain" })).toEqual([]);
      expect(await logOf({ ...byTarget, target_type: "account" })).toHaveLength(6);
    });

    it("refuses malformed filters with 422 and the error body", async () => {
      for (const query of [
        "action=Not%20a%20verb",
        "action=account.",
        "target_type=Domain-Name",
        `actor_id=${"x".repeat(65)}`,
        "target_id=",
      ]) {
        const response = await kith.request("GET", `${LOG}?${query}`, { token: owner.token });
        expect(response.status, query).toBe(422);
        expect(await response.json()).toMatchObject({
          error: expect.any(String),
          code: "request.validation_failed",
          details: expect.any(Array),
        });
      }
    });
  });

  describe("who reads the server's log", () => {
    it("answers 401 without a token and 403 to a user holding none of the resources", async () => {
      expect((await kith.request("GET", LOG)).status).toBe(401);
      const refused = await kith.request("GET", LOG, { token: plain.token });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "auth.forbidden" });
      // Grants of other resources (or of a group's) do not open it.
      const other = await fresh();
      await giveGrants(kith, other.account.id, [{ resource: "Jobs", access: ALL, scope: "global" }]);
      expect((await kith.request("GET", LOG, { token: other.token })).status).toBe(403);
    });

    it("shows each reader the entries of the resources it holds", async () => {
      const target = await fresh();
      await call(kith, "POST", `${ACCOUNTS}/${target.account.id}/action`, admin.token, { type: "silence", text: "Loud" });
      await call(kith, "POST", "/api/v1/admin/domain_blocks", admin.token, { domain: "readers.example" });
      const role = await call(kith, "POST", `${RBAC}/roles`, owner.token, { name: "Readers" });
      expect(role.status).toBe(201);

      const federationOnly = await fresh();
      await giveGrants(kith, federationOnly.account.id, [{ resource: "Federation", access: ["Read"], scope: "global" }]);
      const families = async (token: string) =>
        new Set(actions(await read(`${LOG}?limit=80`, token)).map((action) => action.split(".")[0]));

      expect(await families(federationOnly.token)).toEqual(new Set(["domain_block", "domain_allow"]));
      // Moderators hold Users.Read, Federation.Read and Reports, not Roles.
      const seenByModerator = await families(moderator.token);
      expect(seenByModerator.has("account")).toBe(true);
      expect(seenByModerator.has("domain_block")).toBe(true);
      expect(seenByModerator.has("role")).toBe(false);
      expect((await families(admin.token)).has("role")).toBe(true);

      // Users.Manage alone reads account entries too.
      const manager = await fresh();
      await giveGrants(kith, manager.account.id, [{ resource: "Users", access: ["Add", "Modify", "Delete"], scope: "global" }]);
      const managed = await read(`${LOG}?target_id=${target.account.id}`, manager.token);
      expect(managed).toMatchObject([{ action: "account.silence", text: "Loud" }]);
    });
  });

  describe("a group's log", () => {
    async function roleOf(groupId: string, name: string): Promise<string> {
      const roles = await call(kith, "GET", `${RBAC}/roles?scope=${groupId}`, groupOwner.token);
      expect(roles.status).toBe(200);
      return roles.body.find((role: { name: string }) => role.name === name).roleId;
    }
    let groupOwner: TestUser;

    /** A group with a moderator (given the group's Moderator role by its owner) and two members. */
    async function staffedGroup(options: Record<string, unknown> = {}) {
      const group = await createGroup(kith, groupOwner.token, options);
      const [groupModerator, alice, bob] = [await fresh("gm"), await fresh("gm"), await fresh("gm")];
      for (const user of [groupModerator, alice, bob]) {
        if (options.secret) {
          // A secret group is joined by invitation.
          expect(
            (await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, groupOwner.token, { account_id: user.account.id })).status,
          ).toBe(200);
        }
        expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
      }
      const assigned = await call(kith, "POST", `${RBAC}/actors/${groupModerator.account.id}/roles?scope=${group.id}`, groupOwner.token, {
        roleId: await roleOf(group.id, "Moderator"),
      });
      expect(assigned.status).toBe(200);
      return { group, groupModerator, alice, bob };
    }

    beforeAll(async () => {
      groupOwner = await kith.createUser("audit_group_owner");
    });

    it("records the decisions on join requests", async () => {
      const group = await createGroup(kith, groupOwner.token, { join_mode: "APPROVAL" });
      const [carol, dave] = [
        await kith.createUser(`audit_jr_c${group.id.slice(-6)}`),
        await kith.createUser(`audit_jr_d${group.id.slice(-6)}`),
      ];
      for (const user of [carol, dave]) expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
      const pending = await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, groupOwner.token);
      const requestOf = (user: TestUser) =>
        (pending.body as { id: string; account: { id: string } }[]).find((request) => request.account.id === user.account.id)?.id;
      const requests = `/api/v1/groups/${group.id}/join_requests`;
      expect((await call(kith, "POST", `${requests}/${requestOf(carol)}/approve`, groupOwner.token)).status).toBe(200);
      expect((await call(kith, "POST", `${requests}/${requestOf(dave)}/reject`, groupOwner.token)).status).toBe(200);
      const entries = await read(`/api/v1/groups/${group.id}/audit_log?action=group`, groupOwner.token);
      expect(entries.map(({ action, target_id }) => [action, target_id])).toEqual([
        ["group.reject_join", dave.account.id],
        ["group.approve_join", carol.account.id],
      ]);
    });

    it("records bans with their reason, unbans, removals and role changes in the group's scope, apart from the server's", async () => {
      const { group, groupModerator, alice, bob } = await staffedGroup();
      const banned = await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, groupModerator.token, {
        reason: "Trolling",
      });
      expect(banned.status).toBe(200);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, groupModerator.token)).status).toBe(200);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${bob.account.id}`, groupModerator.token)).status).toBe(200);

      const entries = await read(`/api/v1/groups/${group.id}/audit_log`, groupModerator.token);
      expect(entries.map(({ action, actor_id, target_id, scope, text }) => ({ action, actor_id, target_id, scope, text }))).toEqual([
        { action: "group.remove_member", actor_id: groupModerator.account.id, target_id: bob.account.id, scope: group.id, text: null },
        { action: "group.unban", actor_id: groupModerator.account.id, target_id: alice.account.id, scope: group.id, text: null },
        { action: "group.ban", actor_id: groupModerator.account.id, target_id: alice.account.id, scope: group.id, text: "Trolling" },
        {
          action: "role.assign",
          actor_id: groupOwner.account.id,
          target_id: groupModerator.account.id,
          scope: group.id,
          text: "Moderator",
        },
      ]);
      expect(entries[2]?.actor).toMatchObject({ id: groupModerator.account.id });
      expect(actions(await read(`/api/v1/groups/${group.id}/audit_log?action=group.ban`, groupOwner.token))).toEqual(["group.ban"]);

      // The server's log is the server's scope only.
      expect(await logOf({ target_id: alice.account.id })).toEqual([]);
      // Another group's log does not hold them.
      const other = await createGroup(kith, groupOwner.token);
      expect(await read(`/api/v1/groups/${other.id}/audit_log`, groupOwner.token)).toEqual([]);
    });

    it("is read by those holding the group's grants or global ones, never by a grant held in another group", async () => {
      const { group, alice } = await staffedGroup();
      const path = `/api/v1/groups/${group.id}/audit_log`;
      expect((await kith.request("GET", path)).status).toBe(401);

      // A member without the group's grants.
      const refused = await kith.request("GET", path, { token: alice.token });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "auth.forbidden" });

      // The Owner of another group holds every group resource there, not here.
      const elsewhere = await fresh();
      await createGroup(kith, elsewhere.token);
      expect((await kith.request("GET", path, { token: elsewhere.token })).status).toBe(403);
      const grantedElsewhere = await fresh();
      const otherGroup = await createGroup(kith, groupOwner.token);
      await giveGrants(kith, grantedElsewhere.account.id, [{ resource: "GroupMembers", access: ALL, scope: otherGroup.id }]);
      expect((await kith.request("GET", path, { token: grantedElsewhere.token })).status).toBe(403);

      // Server grants do not open a group's log; the group's resources held globally do.
      const serverStaff = await fresh();
      await giveGrants(kith, serverStaff.account.id, [
        { resource: "Users", access: ALL, scope: "global" },
        { resource: "Roles", access: ALL, scope: "global" },
      ]);
      expect((await kith.request("GET", path, { token: serverStaff.token })).status).toBe(403);
      const global = await fresh();
      await giveGrants(kith, global.account.id, [{ resource: "GroupRoles", access: ["Read"], scope: "global" }]);
      const seen = await read(path, global.token);
      expect(actions(seen)).toEqual(["role.assign"]);

      // A group-scoped GroupRoles.Read reads the role entries, not the members' ones.
      const roleReader = await fresh();
      await giveGrants(kith, roleReader.account.id, [{ resource: "GroupRoles", access: ["Read"], scope: group.id }]);
      await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${alice.account.id}`, groupOwner.token, { reason: "Enough" });
      expect(actions(await read(path, roleReader.token))).toEqual(["role.assign"]);
      expect(actions(await read(path, groupOwner.token))).toEqual(["group.ban", "role.assign"]);
    });

    it("hides a secret group from refused callers outside it (404), and a group that does not exist", async () => {
      const { group, alice } = await staffedGroup({ secret: true });
      const path = `/api/v1/groups/${group.id}/audit_log`;
      const outsider = await fresh();
      const hidden = await kith.request("GET", path, { token: outsider.token });
      expect(hidden.status).toBe(404);
      // A member who may see the group but not its log is refused plainly.
      expect((await kith.request("GET", path, { token: alice.token })).status).toBe(403);
      expect((await kith.request("GET", path, { token: groupOwner.token })).status).toBe(200);

      const missing = `/api/v1/groups/gr_00000000000000000000000000/audit_log`;
      expect((await kith.request("GET", missing, { token: outsider.token })).status).toBe(404);
      // Even to a holder of the group resources globally.
      expect((await kith.request("GET", missing, { token: owner.token })).status).toBe(404);
    });

    it("refuses malformed filters with 422", async () => {
      const group = await createGroup(kith, groupOwner.token);
      const response = await kith.request("GET", `/api/v1/groups/${group.id}/audit_log?action=BAN`, { token: groupOwner.token });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ code: "request.validation_failed" });
    });
  });
});
