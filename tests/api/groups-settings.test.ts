/**
 * A group's settings (`/api/v1/groups/{groupId}/settings`): a registry of
 * keys, each written whole, read as far as the caller may read it, reverted
 * to its default; the join mode kept with the group's row; who may post and
 * who sees the statuses posted acted on when a member posts.
 */
import { defaultModules, defineModule, groupsModule } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { describeOnEngines } from "../support/engines.js";
import { type GroupJson, call, createGroup, createGroupWithMember } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

/** A module registering settings read by members and by managers only, as another module registers what it reads. */
const notesModule = defineModule({
  name: "settings-notes",
  requires: [groupsModule],
  services: ({ use }) => {
    const { settings } = use(groupsModule);
    settings.registry.register({
      key: "members_note",
      description: "A note for members",
      schema: z.object({ text: z.string() }),
      default: { text: "" },
      readableBy: "members",
    });
    settings.registry.register({
      key: "managers_note",
      description: "A note for managers",
      schema: z.object({ text: z.string(), pinned: z.boolean().optional() }),
      default: { text: "" },
      readableBy: "managers",
    });
    return {};
  },
});

const PUBLIC_DEFAULTS = {
  join_mode: { mode: "OPEN" },
  posting: { who: "members" },
  status_privacy: { visibility: "public" },
  calendar: { public: false },
};

describeOnEngines("group settings", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let moderator: TestUser;
  let stranger: TestUser;
  let group: GroupJson;
  let serial = 0;
  const freshUser = () => kith.createUser(`gs${++serial}`);
  const settingsOf = (groupId: string) => `/api/v1/groups/${groupId}/settings`;

  beforeAll(async () => {
    kith = await engine.testKith({ modules: [...defaultModules, notesModule] });
    owner = await kith.createUser("gsowner");
    member = await kith.createUser("gsmember");
    moderator = await kith.createUser("gsmoderator");
    stranger = await kith.createUser("gsstranger");
    group = await createGroup(kith, owner.token);
    for (const user of [member, moderator])
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
    await giveGroupRole(group.id, moderator, "Moderator");
  });
  afterAll(() => kith.close());

  /** Gives the user the group's built-in role of that name, as its owner does through RBAC's group scope. */
  async function giveGroupRole(groupId: string, user: TestUser, roleName: string): Promise<void> {
    const roles = await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${groupId}`, owner.token);
    const role = roles.body.find((candidate: { name: string }) => candidate.name === roleName);
    const assigned = await call(kith, "POST", `/api/v1/admin/rbac/actors/${user.account.id}/roles?scope=${groupId}`, owner.token, {
      roleId: role.roleId,
    });
    expect(assigned.status).toBe(200);
  }

  /** A fresh group of the owner's with `member` in it. */
  const groupWithMember = (body: Record<string, unknown> = {}): Promise<GroupJson> => createGroupWithMember(kith, owner, member, body);

  describe("reading", () => {
    it("shows a new group's defaults, every key to its owner", async () => {
      const read = await call(kith, "GET", settingsOf(group.id), owner.token);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...PUBLIC_DEFAULTS, members_note: { text: "" }, managers_note: { text: "" } });
    });

    it("shows each caller the keys its level reads: public to a stranger, members' to a member, all to a moderator", async () => {
      const made = await groupWithMember();
      expect((await call(kith, "POST", `/api/v1/groups/${made.id}/join`, moderator.token)).status).toBe(200);
      await giveGroupRole(made.id, moderator, "Moderator");
      const written = await call(kith, "PUT", settingsOf(made.id), owner.token, {
        members_note: { text: "for members" },
        managers_note: { text: "for managers", pinned: true },
      });
      expect(written.status).toBe(200);

      expect((await call(kith, "GET", settingsOf(made.id), stranger.token)).body).toEqual(PUBLIC_DEFAULTS);
      expect((await call(kith, "GET", settingsOf(made.id), member.token)).body).toEqual({
        ...PUBLIC_DEFAULTS,
        members_note: { text: "for members" },
      });
      expect((await call(kith, "GET", settingsOf(made.id), moderator.token)).body).toEqual({
        ...PUBLIC_DEFAULTS,
        members_note: { text: "for members" },
        managers_note: { text: "for managers", pinned: true },
      });
      // A key named but not readable is left out, not refused.
      const named = await call(kith, "GET", `${settingsOf(made.id)}?keys[]=managers_note&keys[]=posting`, member.token);
      expect(named.status).toBe(200);
      expect(named.body).toEqual({ posting: { who: "members" } });
    });

    it("counts a group grant in its own group only", async () => {
      const elsewhere = await freshUser();
      const other = await createGroup(kith, owner.token);
      await giveGrants(kith, elsewhere.account.id, [{ resource: "GroupSettings", access: ["Read"], scope: other.id }]);
      expect(Object.keys((await call(kith, "GET", settingsOf(group.id), elsewhere.token)).body).sort()).toEqual(
        Object.keys(PUBLIC_DEFAULTS).sort(),
      );
      expect((await call(kith, "GET", settingsOf(other.id), elsewhere.token)).body).toHaveProperty("managers_note");
    });

    it("reads the keys named, and refuses an unknown one with 422", async () => {
      const named = await call(kith, "GET", `${settingsOf(group.id)}?keys[]=posting&keys[]=calendar`, owner.token);
      expect(named.body).toEqual({ posting: { who: "members" }, calendar: { public: false } });
      const unknown = await call(kith, "GET", `${settingsOf(group.id)}?keys[]=posting&keys[]=nope`, owner.token);
      expect(unknown.status).toBe(422);
      expect(unknown.body).toMatchObject({ code: "group.setting_unknown", details: [{ field: "nope" }] });
    });

    it("answers 401 without credentials, and 404 to a stranger for a secret group", async () => {
      expect((await call(kith, "GET", settingsOf(group.id))).status).toBe(401);
      const secret = await groupWithMember({ secret: true });
      const hidden = await call(kith, "GET", settingsOf(secret.id), stranger.token);
      expect(hidden.status).toBe(404);
      expect(hidden.body.code).toBe("group.not_found");
      expect((await call(kith, "GET", settingsOf(secret.id), member.token)).body).toMatchObject({ posting: { who: "members" } });
    });
  });

  describe("writing", () => {
    it("writes several settings at once, and answers them", async () => {
      const made = await groupWithMember();
      const written = await call(kith, "PUT", settingsOf(made.id), owner.token, {
        posting: { who: "managers" },
        calendar: { public: true },
      });
      expect(written.status).toBe(200);
      expect(written.body).toEqual({ posting: { who: "managers" }, calendar: { public: true } });
      expect((await call(kith, "GET", settingsOf(made.id), member.token)).body).toMatchObject({
        posting: { who: "managers" },
        calendar: { public: true },
        status_privacy: { visibility: "public" },
      });
    });

    it("keeps the join mode with the group: PATCH and the setting agree", async () => {
      const made = await groupWithMember();
      expect((await call(kith, "PUT", settingsOf(made.id), owner.token, { join_mode: { mode: "APPROVAL" } })).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/groups/${made.id}`, owner.token)).body.join_mode).toBe("APPROVAL");
      expect((await call(kith, "PATCH", `/api/v1/groups/${made.id}`, owner.token, { join_mode: "INVITE_ONLY" })).status).toBe(200);
      expect((await call(kith, "GET", `${settingsOf(made.id)}?keys[]=join_mode`, owner.token)).body).toEqual({
        join_mode: { mode: "INVITE_ONLY" },
      });
      // The join mode the setting wrote is the one joining obeys.
      const refused = await call(kith, "POST", `/api/v1/groups/${made.id}/join`, stranger.token);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.invitation_required");
    });

    it("refuses a partial object with 422 naming the missing fields, and writes nothing", async () => {
      const made = await groupWithMember();
      const partial = await call(kith, "PUT", settingsOf(made.id), owner.token, { posting: { who: "managers" }, status_privacy: {} });
      expect(partial.status).toBe(422);
      expect(partial.body.code).toBe("group.setting_invalid");
      expect(partial.body.error).toContain("status_privacy.visibility");
      expect(partial.body.details).toEqual([expect.objectContaining({ field: "status_privacy.visibility", code: "missing" })]);
      // All or none: the valid setting beside it was not written.
      expect((await call(kith, "GET", `${settingsOf(made.id)}?keys[]=posting`, owner.token)).body).toEqual({ posting: { who: "members" } });
    });

    it("refuses a value that is not an object, a field the setting lacks and a value out of its range", async () => {
      const made = await groupWithMember();
      const cases = [
        [{ calendar: true }, "calendar"],
        [{ calendar: { public: true, colour: "red" } }, "calendar.colour"],
        [{ posting: { who: "everyone" } }, "posting.who"],
      ] as const;
      for (const [body, field] of cases) {
        const refused = await call(kith, "PUT", settingsOf(made.id), owner.token, body);
        expect(refused.status).toBe(422);
        expect(refused.body).toMatchObject({ code: "group.setting_invalid", details: [expect.objectContaining({ field })] });
      }
    });

    it("refuses an unknown key with 422", async () => {
      const refused = await call(kith, "PUT", settingsOf(group.id), owner.token, { colour: { name: "red" }, posting: { who: "members" } });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: "group.setting_unknown", details: [{ field: "colour" }] });
    });

    it("lets a holder of GroupSettings.Manage in the group write, and no other", async () => {
      const made = await groupWithMember();
      const noPermission = await call(kith, "PUT", settingsOf(made.id), member.token, { calendar: { public: true } });
      expect(noPermission.status).toBe(403);
      expect(noPermission.body.code).toBe("auth.forbidden");
      // Moderators read the settings but do not change them.
      expect((await call(kith, "PUT", settingsOf(group.id), moderator.token, { calendar: { public: true } })).status).toBe(403);

      const elsewhere = await freshUser();
      const other = await createGroup(kith, owner.token);
      await giveGrants(kith, elsewhere.account.id, [{ resource: "GroupSettings", access: ["Add", "Modify", "Delete"], scope: other.id }]);
      expect((await call(kith, "PUT", settingsOf(made.id), elsewhere.token, { calendar: { public: true } })).status).toBe(403);
      expect((await call(kith, "DELETE", `${settingsOf(made.id)}?keys[]=calendar`, elsewhere.token)).status).toBe(403);

      const granted = await freshUser();
      await giveGrants(kith, granted.account.id, [{ resource: "GroupSettings", access: ["Add", "Modify", "Delete"], scope: made.id }]);
      expect((await call(kith, "PUT", settingsOf(made.id), granted.token, { calendar: { public: true } })).status).toBe(200);
    });

    it("answers 401 without credentials, and 404 to a stranger for a secret group", async () => {
      expect((await call(kith, "PUT", settingsOf(group.id), undefined, { calendar: { public: true } })).status).toBe(401);
      expect((await call(kith, "DELETE", `${settingsOf(group.id)}?keys[]=calendar`)).status).toBe(401);
      const secret = await groupWithMember({ secret: true });
      for (const [method, path] of [
        ["PUT", settingsOf(secret.id)],
        ["DELETE", `${settingsOf(secret.id)}?keys[]=calendar`],
      ] as const) {
        const hidden = await call(kith, method, path, stranger.token, method === "PUT" ? { calendar: { public: true } } : undefined);
        expect(hidden.status).toBe(404);
        expect(hidden.body.code).toBe("group.not_found");
      }
      // A member of the secret group who may not write is told 403: the group is no secret to it.
      expect((await call(kith, "PUT", settingsOf(secret.id), member.token, { calendar: { public: true } })).status).toBe(403);
    });
  });

  describe("reverting", () => {
    it("reverts the keys named to their defaults, the join mode in the group's row too", async () => {
      const made = await groupWithMember();
      const written = await call(kith, "PUT", settingsOf(made.id), owner.token, {
        join_mode: { mode: "APPROVAL" },
        posting: { who: "managers" },
        calendar: { public: true },
      });
      expect(written.status).toBe(200);
      const reverted = await call(kith, "DELETE", `${settingsOf(made.id)}?keys[]=join_mode&keys[]=posting`, owner.token);
      expect(reverted.status).toBe(200);
      expect(reverted.body).toEqual({ join_mode: { mode: "OPEN" }, posting: { who: "members" } });
      expect((await call(kith, "GET", `/api/v1/groups/${made.id}`, owner.token)).body.join_mode).toBe("OPEN");
      // A key not named keeps its value.
      expect((await call(kith, "GET", `${settingsOf(made.id)}?keys[]=calendar`, owner.token)).body).toEqual({ calendar: { public: true } });
    });

    it("needs keys, known ones", async () => {
      const none = await call(kith, "DELETE", settingsOf(group.id), owner.token);
      expect([400, 422]).toContain(none.status);
      const unknown = await call(kith, "DELETE", `${settingsOf(group.id)}?keys[]=nope`, owner.token);
      expect(unknown.status).toBe(422);
      expect(unknown.body.code).toBe("group.setting_unknown");
    });

    it("refuses a member without the permission", async () => {
      const refused = await call(kith, "DELETE", `${settingsOf(group.id)}?keys[]=calendar`, member.token);
      expect(refused.status).toBe(403);
    });
  });

  describe("posting", () => {
    const post = (user: TestUser, groupId: string, status: string) =>
      call(kith, "POST", "/api/v1/statuses", user.token, { status, group_id: groupId });

    it("refuses a member's status where only managers post, with its own code; lets managers post", async () => {
      const made = await groupWithMember();
      expect((await call(kith, "POST", `/api/v1/groups/${made.id}/join`, moderator.token)).status).toBe(200);
      await giveGroupRole(made.id, moderator, "Moderator");
      expect((await post(member, made.id, "before")).status).toBe(200);
      expect((await call(kith, "PUT", settingsOf(made.id), owner.token, { posting: { who: "managers" } })).status).toBe(200);

      const refused = await post(member, made.id, "after");
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.managers_only_posting");
      const root = await post(owner, made.id, "from the owner");
      expect(root.status).toBe(200);
      // A reply lands in the group too: refused alike.
      const reply = await call(kith, "POST", "/api/v1/statuses", member.token, { status: "a reply", in_reply_to_id: root.body.id });
      expect(reply.status).toBe(403);
      expect(reply.body.code).toBe("group.managers_only_posting");
      expect((await post(moderator, made.id, "from a moderator")).status).toBe(200);

      expect((await call(kith, "DELETE", `${settingsOf(made.id)}?keys[]=posting`, owner.token)).status).toBe(200);
      expect((await post(member, made.id, "members again")).status).toBe(200);
    });

    it("posts to the members only where statuses are the members', and as the author chose otherwise", async () => {
      const made = await groupWithMember();
      const open = await post(member, made.id, "for everyone");
      expect(open.body.visibility).toBe("public");
      expect((await call(kith, "PUT", settingsOf(made.id), owner.token, { status_privacy: { visibility: "members" } })).status).toBe(200);

      const closed = await post(member, made.id, "for members");
      expect(closed.status).toBe(200);
      expect(closed.body.visibility).toBe("direct");
      expect((await call(kith, "GET", `/api/v1/statuses/${closed.body.id}`, owner.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/statuses/${closed.body.id}`, stranger.token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/statuses/${closed.body.id}`)).status).toBe(404);
      const timelineIds = async (user?: TestUser) =>
        ((await call(kith, "GET", `/api/v1/timelines/group/${made.id}`, user?.token)).body as { id: string }[]).map((status) => status.id);
      expect(await timelineIds(owner)).toEqual([closed.body.id, open.body.id]);
      expect(await timelineIds(stranger)).toEqual([open.body.id]);
      // What was posted before keeps its audience.
      expect((await call(kith, "GET", `/api/v1/statuses/${open.body.id}`, stranger.token)).status).toBe(200);
    });
  });
});
