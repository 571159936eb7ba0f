/**
 * A group is also an account to Mastodon clients (`group: true`, the group's
 * id): its profile, lookup, search, statuses, following as joining by the
 * join mode, unfollowing as leaving, relationships, mentions; a secret
 * group's account is not found by non-members anywhere. Also the shared
 * username namespace, and a group's avatar and header.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountJson } from "../../packages/core/src/mastodon/entities/account.js";
import { missingKeys } from "../support/entity-keys.js";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup, groupName } from "../support/groups.js";
import { makePng } from "../support/media-files.js";
import { appToken, signUp, signupFields } from "../support/registration.js";

describeOnEngines("groups as accounts", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`ga${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("gaowner");
  });
  afterAll(() => kith.close());

  const follow = (groupId: string, user: TestUser) => call(kith, "POST", `/api/v1/accounts/${groupId}/follow`, user.token);
  const unfollow = (groupId: string, user: TestUser) => call(kith, "POST", `/api/v1/accounts/${groupId}/unfollow`, user.token);
  const relationship = async (groupId: string, user: TestUser) => {
    const response = await call(kith, "GET", `/api/v1/accounts/relationships?id[]=${groupId}`, user.token);
    expect(response.status).toBe(200);
    return response.body[0];
  };
  const post = (user: TestUser, json: Record<string, unknown>) => call(kith, "POST", "/api/v1/statuses", user.token, json);

  describe("the profile", () => {
    it("shows a group as an account with group: true, its counts, and its id", async () => {
      const name = groupName("Profile");
      const group = await createGroup(kith, owner.token, { name, display_name: "The Profile", note: "Fish & <chips>\nand more" });
      const response = await call(kith, "GET", `/api/v1/accounts/${group.id}`);
      expect(response.status).toBe(200);
      expect(missingKeys(AccountJson, response.body)).toEqual([]);
      expect(response.body).toMatchObject({
        id: group.id,
        username: name,
        acct: name,
        display_name: "The Profile",
        note: "<p>Fish &amp; &lt;chips&gt;<br />and more</p>",
        group: true,
        bot: false,
        locked: false,
        followers_count: 1,
        statuses_count: 0,
      });

      const member = await freshUser();
      expect((await follow(group.id, member)).status).toBe(200);
      expect((await post(member, { status: "hello group", group_id: group.id })).status).toBe(200);
      const after = await call(kith, "GET", `/api/v1/accounts/${group.id}`);
      expect(after.body).toMatchObject({ followers_count: 2, statuses_count: 1 });

      // Changes of the group show on its account.
      const changed = await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, {
        display_name: "Renamed",
        join_mode: "APPROVAL",
      });
      expect(changed.status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${group.id}`)).body).toMatchObject({ display_name: "Renamed", locked: true });
    });

    it("is found by lookup and by search, case aside", async () => {
      const name = groupName("Findme");
      const group = await createGroup(kith, owner.token, { name });
      const looked = await call(kith, "GET", `/api/v1/accounts/lookup?acct=${name.toUpperCase()}`);
      expect(looked.status).toBe(200);
      expect(looked.body).toMatchObject({ id: group.id, group: true });
      const viewer = await freshUser();
      const found = await call(kith, "GET", `/api/v1/accounts/search?q=${name}`, viewer.token);
      expect(found.status).toBe(200);
      expect(found.body.map((account: { id: string }) => account.id)).toContain(group.id);
      const v2 = await call(kith, "GET", `/api/v2/search?q=${name}&type=accounts`, viewer.token);
      expect(v2.body.accounts.map((account: { id: string }) => account.id)).toContain(group.id);
    });

    it("lists the group's statuses as its account's, as the viewer may see them", async () => {
      const group = await createGroup(kith, owner.token);
      const posted = await post(owner, { status: "in the group", group_id: group.id });
      expect(posted.status).toBe(200);
      expect((await post(owner, { status: "not in the group" })).status).toBe(200);
      const response = await kith.request("GET", `/api/v1/accounts/${group.id}/statuses?limit=1`);
      expect(response.status).toBe(200);
      const statuses = (await response.json()) as { id: string }[];
      expect(statuses.map((status) => status.id)).toEqual([posted.body.id]);
      expect(response.headers.get("link")).toContain("max_id=");
      expect((await call(kith, "GET", `/api/v1/accounts/${group.id}/statuses?pinned=true`)).body).toEqual([]);
    });

    it("resolves a mention of the group to its account", async () => {
      const name = groupName("Mentioned");
      const group = await createGroup(kith, owner.token, { name });
      const user = await freshUser();
      const posted = await post(user, { status: `hello @${name}` });
      expect(posted.status).toBe(200);
      expect(posted.body.mentions).toEqual([expect.objectContaining({ id: group.id, acct: name })]);
    });
  });

  describe("following is joining", () => {
    it("joins an OPEN group; following again changes nothing; unfollowing leaves", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "OPEN" });
      const user = await freshUser();
      const followed = await follow(group.id, user);
      expect(followed.status).toBe(200);
      expect(followed.body).toMatchObject({ id: group.id, following: true, requested: false });
      expect((await follow(group.id, user)).body).toMatchObject({ following: true });
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}`, user.token)).body.membership.member).toBe(true);
      expect(await relationship(group.id, user)).toMatchObject({ following: true });

      const left = await unfollow(group.id, user);
      expect(left.status).toBe(200);
      expect(left.body).toMatchObject({ following: false, requested: false });
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}`, user.token)).body.membership.member).toBe(false);
      expect((await unfollow(group.id, user)).status).toBe(200);
    });

    it("asks to join an APPROVAL group: a follow request, until a manager approves it", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const user = await freshUser();
      const asked = await follow(group.id, user);
      expect(asked.status).toBe(200);
      expect(asked.body).toMatchObject({ following: false, requested: true });
      const requests = await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token);
      const request = requests.body.find((entry: { account: { id: string } }) => entry.account.id === user.account.id);
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${request.id}/approve`, owner.token)).status).toBe(200);
      expect(await relationship(group.id, user)).toMatchObject({ following: true, requested: false });
    });

    it("withdraws a pending join request by unfollowing", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const user = await freshUser();
      await follow(group.id, user);
      expect((await unfollow(group.id, user)).body).toMatchObject({ following: false, requested: false });
    });

    it("refuses INVITE_ONLY without an invitation, and joins with one", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "INVITE_ONLY" });
      const user = await freshUser();
      const refused = await follow(group.id, user);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.invitation_required");
      const invited = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: user.account.id });
      expect(invited.status).toBe(200);
      expect((await follow(group.id, user)).body).toMatchObject({ following: true });
    });

    it("refuses QUESTIONS without answers (the group's own route takes the token)", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "QUESTIONS" });
      const user = await freshUser();
      const refused = await follow(group.id, user);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("group.join_token_required");
      expect(await relationship(group.id, user)).toMatchObject({ following: false, requested: false });
    });

    it("refuses a banned account", async () => {
      const group = await createGroup(kith, owner.token);
      const user = await freshUser();
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/bans/${user.account.id}`, owner.token, {})).status).toBe(200);
      const refused = await follow(group.id, user);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.banned");
    });

    it("does not let the last owner unfollow", async () => {
      const group = await createGroup(kith, owner.token);
      const refused = await unfollow(group.id, owner);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("group.last_owner");
      expect(await relationship(group.id, owner)).toMatchObject({ following: true });
    });

    it("needs a signed-in user with the follow scope", async () => {
      const group = await createGroup(kith, owner.token);
      expect((await call(kith, "POST", `/api/v1/accounts/${group.id}/follow`)).status).toBe(401);
      const reader = await kith.createUser(`gareader${++serial}`, { scopes: ["read"] });
      expect((await call(kith, "POST", `/api/v1/accounts/${group.id}/follow`, reader.token)).status).toBe(403);
    });
  });

  describe("a secret group's account", () => {
    async function secretGroup() {
      const name = groupName("Hush");
      const group = await createGroup(kith, owner.token, { name, secret: true });
      const member = await freshUser();
      const invited = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: member.account.id });
      expect(invited.status).toBe(200);
      expect((await follow(group.id, member)).status).toBe(200);
      return { group, name, member };
    }

    /** Every way an account is found or acted on, as the user sees it: nothing of the group. */
    async function expectConcealed(groupId: string, name: string, user: TestUser | null) {
      const token = user?.token;
      expect((await call(kith, "GET", `/api/v1/accounts/${groupId}`, token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${name}`, token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts?id[]=${groupId}`, token)).body).toEqual([]);
      expect((await call(kith, "GET", `/api/v1/accounts/${groupId}/statuses`, token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/${groupId}/followers`, token)).status).toBe(404);
      if (!user) return;
      expect((await call(kith, "GET", `/api/v1/accounts/search?q=${name}`, token)).body).toEqual([]);
      expect((await call(kith, "GET", `/api/v2/search?q=${name}&type=accounts`, token)).body.accounts).toEqual([]);
      expect((await call(kith, "GET", `/api/v1/accounts/relationships?id[]=${groupId}`, token)).body).toEqual([]);
      expect((await follow(groupId, user)).status).toBe(404);
      expect((await unfollow(groupId, user)).status).toBe(404);
      expect((await call(kith, "POST", `/api/v1/accounts/${groupId}/block`, token)).status).toBe(404);
      expect((await call(kith, "POST", `/api/v1/accounts/${groupId}/note`, token, { comment: "x" })).status).toBe(404);
      // A mention of it stays plain text.
      const posted = await post(user, { status: `who is @${name}?` });
      expect(posted.status).toBe(200);
      expect(posted.body.mentions).toEqual([]);
    }

    it("is seen by its members", async () => {
      const { group, name, member } = await secretGroup();
      expect((await call(kith, "GET", `/api/v1/accounts/${group.id}`, member.token)).body).toMatchObject({ id: group.id, group: true });
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${name}`, member.token)).status).toBe(200);
      expect(await relationship(group.id, member)).toMatchObject({ following: true });
      const posted = await post(member, { status: `for @${name}`, group_id: group.id });
      expect(posted.status).toBe(200);
      expect(posted.body.mentions.map((mention: { id: string }) => mention.id)).toEqual([group.id]);
      const statuses = await call(kith, "GET", `/api/v1/accounts/${group.id}/statuses`, member.token);
      expect(statuses.body.map((status: { id: string }) => status.id)).toEqual([posted.body.id]);
      // Outside the group's own statuses, whoever reads may not see the group: the handle stays plain text, for members too.
      const outside = await post(member, { status: `outside, @${name}` });
      expect(outside.status).toBe(200);
      expect(outside.body.mentions).toEqual([]);
      const edited = await call(kith, "PUT", `/api/v1/statuses/${posted.body.id}`, member.token, { status: `edited for @${name}` });
      expect(edited.status).toBe(200);
      expect(edited.body.mentions.map((mention: { id: string }) => mention.id)).toEqual([group.id]);
    });

    it("is not found by a guest nor by a non-member, anywhere", async () => {
      const { group, name } = await secretGroup();
      await expectConcealed(group.id, name, null);
      await expectConcealed(group.id, name, await freshUser());
    });

    it("is not found by a member once removed", async () => {
      const { group, name, member } = await secretGroup();
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${member.account.id}`, owner.token)).status).toBe(200);
      await expectConcealed(group.id, name, member);
    });
  });

  describe("notifications", () => {
    it("carries the group on a group notification in v2 as in v1", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const user = await freshUser();
      await follow(group.id, user);
      const v1 = await call(kith, "GET", "/api/v1/notifications?types[]=group.join_request", owner.token);
      const one = v1.body.find((notification: { group: { id: string } | null }) => notification.group?.id === group.id);
      expect(one).toMatchObject({ type: "group.join_request", account: { id: user.account.id } });
      const v2 = await call(kith, "GET", "/api/v2/notifications?types[]=group.join_request", owner.token);
      expect(v2.status).toBe(200);
      const grouped = v2.body.notification_groups.find(
        (entry: { most_recent_notification_id: string }) => entry.most_recent_notification_id === one.id,
      );
      expect(grouped).toMatchObject({ type: "group.join_request", group: { id: group.id, name: group.name } });
    });
  });

  describe("groups made before groups were accounts", () => {
    it("get their accounts from the migration, but not a name an account took", async () => {
      const { groupAccountsMigration } = await import("../../packages/core/src/modules/groups/group-account-store.js");
      const statements = groupAccountsMigration.raw?.[engine.name === "postgres" ? "postgres" : "sqlite"] ?? [];
      expect(statements.length).toBeGreaterThan(0);
      const older = await createGroup(kith, owner.token, { note: "Old <club>", join_mode: "APPROVAL" });
      const clashing = await createGroup(kith, owner.token);
      await kith.storage.db.deleteFrom("accounts").where("id", "in", [older.id, clashing.id]).execute();
      // An account took the second group's name while it had no account.
      await kith.storage.db
        .updateTable("accounts")
        .set({ acct_key: clashing.name.toLowerCase() })
        .where("id", "=", (await freshUser()).account.id)
        .execute();
      expect((await call(kith, "GET", `/api/v1/accounts/${older.id}`)).status).toBe(404);
      for (const statement of statements) await sql.raw(statement).execute(kith.storage.db);
      const restored = await call(kith, "GET", `/api/v1/accounts/${older.id}`);
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({
        group: true,
        acct: older.name,
        note: "<p>Old &lt;club&gt;</p>",
        locked: true,
        followers_count: 1,
      });
      expect((await call(kith, "GET", `/api/v1/accounts/${clashing.id}`)).status).toBe(404);
    });
  });

  describe("a channel's account", () => {
    const channels = (groupId: string, path = "") => `/api/v1/groups/${groupId}/channels${path}`;
    async function newChannel(groupId: string, body: Record<string, unknown>) {
      const made = await call(kith, "POST", channels(groupId), owner.token, body);
      expect(made.status).toBe(200);
      return made.body as { id: string; global_username: string };
    }

    it("shows a channel as an account with group: true, found by its global username, its statuses its channel's", async () => {
      const group = await createGroup(kith, owner.token);
      const globalName = groupName("News");
      const channel = await newChannel(group.id, {
        username: "news",
        global_username: globalName,
        display_name: "News",
        note: "All <news>",
      });
      const shown = await call(kith, "GET", `/api/v1/accounts/${channel.id}`);
      expect(shown.status).toBe(200);
      expect(missingKeys(AccountJson, shown.body)).toEqual([]);
      expect(shown.body).toMatchObject({
        id: channel.id,
        username: globalName,
        acct: globalName,
        display_name: "News",
        note: "<p>All &lt;news&gt;</p>",
        group: true,
        statuses_count: 0,
      });
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${globalName.toUpperCase()}`)).body.id).toBe(channel.id);

      const member = await freshUser();
      expect((await follow(group.id, member)).status).toBe(200);
      const inChannel = await post(member, { status: "in the news", group_id: group.id, channel_id: channel.id });
      const elsewhere = await post(member, { status: "in general", group_id: group.id });
      const statuses = await call(kith, "GET", `/api/v1/accounts/${channel.id}/statuses`, member.token);
      expect(statuses.body.map((status: { id: string }) => status.id)).toEqual([inChannel.body.id]);
      expect(statuses.body.map((status: { id: string }) => status.id)).not.toContain(elsewhere.body.id);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).body.statuses_count).toBe(1);

      const changed = await call(kith, "PATCH", channels(group.id, `/${channel.id}`), owner.token, { display_name: "Headlines", note: "" });
      expect(changed.status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).body).toMatchObject({ display_name: "Headlines", note: "" });

      // Listed as its group is.
      const listed = (await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).body.discoverable as boolean;
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { discoverable: !listed })).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).body.discoverable).toBe(!listed);
    });

    it("is subscribed to by following it, members only; unfollowing unsubscribes", async () => {
      const group = await createGroup(kith, owner.token);
      const channel = await newChannel(group.id, { username: "talk" });
      const [member, outsider] = [await freshUser(), await freshUser()];
      expect((await follow(group.id, member)).status).toBe(200);
      const subscribed = async (user: TestUser) =>
        (await call(kith, "GET", channels(group.id, `/${channel.id}`), user.token)).body.subscribed as boolean;

      const followed = await follow(channel.id, member);
      expect(followed.status).toBe(200);
      expect(followed.body).toMatchObject({ id: channel.id, following: true, requested: false });
      expect(await subscribed(member)).toBe(true);
      expect((await relationship(channel.id, member)).following).toBe(true);
      expect((await follow(channel.id, member)).status).toBe(200);

      const refused = await follow(channel.id, outsider);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.channel_members_only");
      expect((await relationship(channel.id, outsider)).following).toBe(false);

      expect((await unfollow(channel.id, member)).body).toMatchObject({ following: false });
      expect(await subscribed(member)).toBe(false);
    });

    it("of a secret group is not found by a guest nor a non-member", async () => {
      const group = await createGroup(kith, owner.token, { secret: true });
      const channel = await newChannel(group.id, { username: "hidden" });
      const member = await freshUser();
      const outsider = await freshUser();
      const invited = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: member.account.id });
      expect(invited.status).toBe(200);
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, member.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`, member.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`, outsider.token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${channel.global_username}`, outsider.token)).status).toBe(404);
      expect((await follow(channel.id, outsider)).status).toBe(404);
    });

    it("goes with its channel and its group, its name free again; a sign-up cannot take a channel's name", async () => {
      const group = await createGroup(kith, owner.token);
      const globalName = groupName("Brief");
      const channel = await newChannel(group.id, { username: "brief", global_username: globalName });
      const { token } = await appToken(kith);
      const taken = await signUp(kith, token, signupFields(globalName.toUpperCase()), { clientIp: "203.0.113.78" });
      expect(taken.status).toBe(422);
      expect(((await taken.json()) as { details: Record<string, { error: string }[]> }).details.username?.[0]?.error).toBe("ERR_TAKEN");

      expect((await call(kith, "DELETE", channels(group.id, `/${channel.id}`), owner.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${globalName}`)).status).toBe(404);
      const again = await newChannel(group.id, { username: "brief2", global_username: globalName });
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${globalName}`)).body.id).toBe(again.id);

      const listed = await call(kith, "GET", channels(group.id));
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}`, owner.token)).status).toBe(200);
      for (const each of listed.body as { id: string }[]) {
        expect((await call(kith, "GET", `/api/v1/accounts/${each.id}`)).status).toBe(404);
      }
    });

    it("is made by the migration for channels made before channels were accounts", async () => {
      const { channelAccountsMigration } = await import("../../packages/core/src/modules/groups/channel-account-store.js");
      const statements = channelAccountsMigration.raw?.[engine.name === "postgres" ? "postgres" : "sqlite"] ?? [];
      expect(statements.length).toBeGreaterThan(0);
      const group = await createGroup(kith, owner.token);
      const channel = await newChannel(group.id, { username: "older", display_name: "Older", note: "Was <here>" });
      await kith.storage.db.deleteFrom("accounts").where("id", "=", channel.id).execute();
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).status).toBe(404);
      for (const statement of statements) await sql.raw(statement).execute(kith.storage.db);
      expect((await call(kith, "GET", `/api/v1/accounts/${channel.id}`)).body).toMatchObject({
        group: true,
        acct: channel.global_username,
        display_name: "Older",
        note: "<p>Was &lt;here&gt;</p>",
      });
    });
  });

  describe("a deleted group", () => {
    it("leaves its account suspended, and its name free", async () => {
      const name = groupName("Gone");
      const group = await createGroup(kith, owner.token, { name });
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}`, owner.token)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${group.id}`)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${name}`)).status).toBe(404);
      const again = await createGroup(kith, owner.token, { name });
      expect((await call(kith, "GET", `/api/v1/accounts/lookup?acct=${name}`)).body.id).toBe(again.id);
    });
  });

  describe("the username namespace", () => {
    it("refuses a group named as an account, case aside", async () => {
      const user = await kith.createUser(`TakenName${++serial}`);
      const refused = await call(kith, "POST", "/api/v1/groups", owner.token, { name: user.account.username.toLowerCase() });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("group.name_taken");
    });

    it("refuses a sign-up with a group's name, case aside", async () => {
      const name = groupName("Signup");
      await createGroup(kith, owner.token, { name });
      const { token } = await appToken(kith);
      const response = await signUp(kith, token, signupFields(name.toUpperCase()), { clientIp: "203.0.113.77" });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { code: string; details: Record<string, { error: string }[]> };
      expect(body.code).toBe("registration.invalid");
      expect(body.details.username?.[0]?.error).toBe("ERR_TAKEN");
    });

    it("refuses an account made by the CLI or an admin with a group's name", async () => {
      const name = groupName("Cli");
      await createGroup(kith, owner.token, { name });
      await expect(kith.services.accounts.createLocalAccount({ username: name, email: `${name}@example.com` })).rejects.toMatchObject({
        code: "account.username_taken",
      });
    });
  });

  describe("avatar and header", () => {
    it("takes them as multipart files, shows them on the group and its account", async () => {
      const group = await createGroup(kith, owner.token);
      const before = await call(kith, "GET", `/api/v1/groups/${group.id}`);
      expect(before.body.avatar).toContain("missing.png");
      const data = new FormData();
      data.set("avatar", new File([await makePng(120, 120)], "group.png", { type: "image/png" }));
      data.set("header", new File([await makePng(300, 100)], "banner.png", { type: "image/png" }));
      data.set("display_name", "Pictured");
      const response = await kith.request("PATCH", `/api/v1/groups/${group.id}`, { token: owner.token, body: data });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        avatar: string;
        avatar_static: string;
        header: string;
        header_static: string;
        display_name: string;
      };
      expect(body.display_name).toBe("Pictured");
      expect(body.avatar).not.toContain("missing.png");
      expect(body.avatar_static).toBe(body.avatar);
      expect(body.header).not.toContain("missing.png");
      expect((await kith.request("GET", new URL(body.avatar).pathname)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/accounts/${group.id}`)).body).toMatchObject({ avatar: body.avatar, header: body.header });
    });

    it("refuses a file that is no image with 422, and changes nothing", async () => {
      const group = await createGroup(kith, owner.token, { display_name: "Unchanged" });
      const data = new FormData();
      data.set("avatar", new File([new TextEncoder().encode("not an image at all")], "avatar.png", { type: "image/png" }));
      data.set("display_name", "Changed");
      const response = await kith.request("PATCH", `/api/v1/groups/${group.id}`, { token: owner.token, body: data });
      expect(response.status).toBe(422);
      const body = (await response.json()) as { error: string; code: string };
      expect(body.error).toEqual(expect.any(String));
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}`)).body.display_name).toBe("Unchanged");
    });

    it("is refused to a member without GroupSettings.Manage", async () => {
      const group = await createGroup(kith, owner.token);
      const member = await freshUser();
      await follow(group.id, member);
      const data = new FormData();
      data.set("avatar", new File([await makePng(32, 32)], "a.png", { type: "image/png" }));
      expect((await kith.request("PATCH", `/api/v1/groups/${group.id}`, { token: member.token, body: data })).status).toBe(403);
    });
  });
});
