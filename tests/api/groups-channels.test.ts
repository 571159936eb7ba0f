/**
 * A group's channels: made with the group (its primary channel) and by its
 * managers, nested, named with a username unique in the group and a global
 * one unique on the server; subscribed to by members (auto-subscribe ones on
 * joining); posted in with `channel_id`, each with its timeline and its
 * stream. A secret group's channels are as absent to non-members as the
 * group.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type TestKith, type TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup, type GroupJson, groupName } from "../support/groups.js";
import { openSocket, type StreamingSocket, wsUrl } from "../support/streaming-socket.js";

const MISSING_CHANNEL = "ch_00000000000000000000000000";

interface ChannelJson {
  readonly id: string;
  readonly group_id: string;
  readonly parent_id: string | null;
  readonly username: string;
  readonly global_username: string;
  readonly display_name: string;
  readonly note: string;
  readonly primary: boolean;
  readonly auto_subscribe: boolean;
  readonly subscribed: boolean;
  readonly statuses_count: number;
  readonly created_at: string;
}

describeOnEngines("group channels", (engine) => {
  let kith: TestKith;
  let server: NodeServer;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`chu${++serial}`);
  /** The groups module's tables, as a group made before channels is set up by hand. */
  const groupTables = () =>
    kith.storage.db.withTables<{
      group_channels: { id: string; group_id: string };
      group_statuses: { group_id: string; channel_id: string | null };
      group_channel_subscriptions: { channel_id: string };
    }>();

  const channels = (group: string, path = "") => `/api/v1/groups/${group}/channels${path}`;
  const list = async (groupId: string, token?: string): Promise<ChannelJson[]> => {
    const answer = await call(kith, "GET", channels(groupId), token);
    expect(answer.status).toBe(200);
    return answer.body as ChannelJson[];
  };
  const primaryOf = async (groupId: string, token?: string): Promise<ChannelJson> => {
    const primary = (await list(groupId, token)).find((channel) => channel.primary);
    expect(primary).toBeDefined();
    return primary as ChannelJson;
  };
  const make = async (groupId: string, body: Record<string, unknown>, token = owner.token): Promise<ChannelJson> => {
    const answer = await call(kith, "POST", channels(groupId), token, body);
    expect(answer.status).toBe(200);
    return answer.body as ChannelJson;
  };
  const post = async (user: TestUser, json: Record<string, unknown>): Promise<string> => {
    const answer = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(answer.status).toBe(200);
    return answer.body.id as string;
  };
  const timeline = async (channelId: string, token?: string, query = "") => {
    const response = await kith.request("GET", `/api/v1/timelines/channel/${channelId}${query}`, token ? { token } : {});
    const body = await response.json();
    const ids: string[] = Array.isArray(body) ? body.map((status: { id: string }) => status.id) : [];
    return { status: response.status, body, ids, link: response.headers.get("link") };
  };
  const openGroupWithMember = async (body: Record<string, unknown> = {}): Promise<GroupJson> => {
    const group = await createGroup(kith, owner.token, { join_mode: "OPEN", ...body });
    expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, member.token)).status).toBe(200);
    return group;
  };
  const secretGroupWithMember = async (): Promise<GroupJson> => {
    const group = await createGroup(kith, owner.token, { secret: true, join_mode: "INVITE_ONLY" });
    expect(
      (await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: member.account.id })).status,
    ).toBe(200);
    expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, member.token)).status).toBe(200);
    return group;
  };

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    owner = await kith.createUser("chowner");
    member = await kith.createUser("chmember");
    stranger = await kith.createUser("chstranger");
  });
  afterAll(async () => {
    await server.close();
    await kith.close();
  });

  describe("the primary channel", () => {
    it("is made with the group, auto-subscribe, its maker subscribed", async () => {
      const group = await createGroup(kith, owner.token);
      const [primary, ...others] = await list(group.id, owner.token);
      expect(others).toEqual([]);
      expect(primary).toMatchObject({
        id: expect.stringMatching(/^ch_/),
        group_id: group.id,
        parent_id: null,
        username: "general",
        global_username: `${group.name}_general`,
        primary: true,
        auto_subscribe: true,
        subscribed: true,
        statuses_count: 0,
      });
      expect((await list(group.id))[0]?.subscribed).toBe(false);
    });

    it("is made for a group that had none, taking its statuses and subscribing its members", async () => {
      const group = await openGroupWithMember();
      const earlier = await post(member, { status: "before channels", group_id: group.id });
      // As a group made before channels: no channel, its statuses in none.
      await groupTables().updateTable("group_statuses").set({ channel_id: null }).where("group_id", "=", group.id).execute();
      await groupTables().deleteFrom("group_channels").where("group_id", "=", group.id).execute();
      const primary = await primaryOf(group.id, member.token);
      expect(primary).toMatchObject({ username: "general", subscribed: true, statuses_count: 1 });
      expect((await timeline(primary.id, member.token)).ids).toEqual([earlier]);
    });

    it("takes the statuses posted without channel_id, and is where a group made before channels posts its first", async () => {
      const group = await openGroupWithMember();
      await groupTables().deleteFrom("group_channels").where("group_id", "=", group.id).execute();
      const first = await post(member, { status: "the first", group_id: group.id });
      const primary = await primaryOf(group.id);
      expect(primary.statuses_count).toBe(1);
      expect((await timeline(primary.id)).ids).toEqual([first]);
    });

    it("cannot be deleted, nor stop being primary but by another channel becoming so", async () => {
      const group = await createGroup(kith, owner.token);
      const primary = await primaryOf(group.id);
      const deleted = await call(kith, "DELETE", channels(group.id, `/${primary.id}`), owner.token);
      expect(deleted).toMatchObject({ status: 409, body: { code: "group.channel_primary" } });
      const unset = await call(kith, "PATCH", channels(group.id, `/${primary.id}`), owner.token, { primary: false });
      expect(unset).toMatchObject({ status: 409, body: { code: "group.channel_primary_required" } });
      const other = await make(group.id, { username: "news" });
      const moved = await call(kith, "PATCH", channels(group.id, `/${other.id}`), owner.token, { primary: true });
      expect(moved).toMatchObject({ status: 200, body: { id: other.id, primary: true } });
      const after = await list(group.id);
      expect(after.map((channel) => [channel.id, channel.primary])).toEqual([
        [other.id, true],
        [primary.id, false],
      ]);
      expect((await call(kith, "DELETE", channels(group.id, `/${primary.id}`), owner.token)).status).toBe(200);
    });
  });

  describe("managing channels", () => {
    it("makes, reads, changes and deletes a channel", async () => {
      const group = await createGroup(kith, owner.token);
      const made = await make(group.id, { username: "Events", display_name: "Events", note: "What is on", auto_subscribe: true });
      expect(made).toMatchObject({
        group_id: group.id,
        username: "Events",
        global_username: `${group.name}_Events`,
        display_name: "Events",
        note: "What is on",
        primary: false,
        auto_subscribe: true,
        subscribed: false,
        statuses_count: 0,
        created_at: expect.any(String),
      });
      const read = await call(kith, "GET", channels(group.id, `/${made.id}`));
      expect(read).toMatchObject({ status: 200, body: { id: made.id, username: "Events" } });
      const global = groupName("glob");
      const changed = await call(kith, "PATCH", channels(group.id, `/${made.id}`), owner.token, {
        username: "happenings",
        global_username: global,
        display_name: "Happenings",
        note: "",
        auto_subscribe: false,
      });
      expect(changed).toMatchObject({
        status: 200,
        body: { id: made.id, username: "happenings", global_username: global, display_name: "Happenings", note: "", auto_subscribe: false },
      });
      expect((await call(kith, "DELETE", channels(group.id, `/${made.id}`), owner.token)).status).toBe(200);
      expect(await call(kith, "GET", channels(group.id, `/${made.id}`))).toMatchObject({
        status: 404,
        body: { code: "group.channel_not_found" },
      });
      expect(await call(kith, "DELETE", channels(group.id, `/${made.id}`), owner.token)).toMatchObject({ status: 404 });
    });

    it("nests channels in channels of the same group, never in themselves", async () => {
      const group = await createGroup(kith, owner.token);
      const other = await createGroup(kith, owner.token);
      const top = await make(group.id, { username: "top" });
      const middle = await make(group.id, { username: "middle", parent_id: top.id });
      const bottom = await make(group.id, { username: "bottom", parent_id: middle.id });
      expect([middle.parent_id, bottom.parent_id]).toEqual([top.id, middle.id]);
      const elsewhere = await make(other.id, { username: "elsewhere" });

      const foreign = await call(kith, "POST", channels(group.id), owner.token, { username: "x", parent_id: elsewhere.id });
      expect(foreign).toMatchObject({ status: 422, body: { code: "group.channel_parent_not_found" } });
      const movedAway = await call(kith, "PATCH", channels(group.id, `/${top.id}`), owner.token, { parent_id: elsewhere.id });
      expect(movedAway).toMatchObject({ status: 422, body: { code: "group.channel_parent_not_found" } });
      for (const parent of [top.id, bottom.id]) {
        const cycle = await call(kith, "PATCH", channels(group.id, `/${top.id}`), owner.token, { parent_id: parent });
        expect(cycle).toMatchObject({ status: 409, body: { code: "group.channel_cycle" } });
      }
      // A channel of another group is not reached through this one.
      expect(await call(kith, "GET", channels(group.id, `/${elsewhere.id}`))).toMatchObject({ status: 404 });

      const withChildren = await call(kith, "DELETE", channels(group.id, `/${middle.id}`), owner.token);
      expect(withChildren).toMatchObject({ status: 409, body: { code: "group.channel_has_children" } });
      const toTop = await call(kith, "PATCH", channels(group.id, `/${bottom.id}`), owner.token, { parent_id: null });
      expect(toTop).toMatchObject({ status: 200, body: { parent_id: null } });
      expect((await call(kith, "DELETE", channels(group.id, `/${middle.id}`), owner.token)).status).toBe(200);
    });

    it("keeps usernames unique in the group and global usernames unique on the server, case aside", async () => {
      const group = await createGroup(kith, owner.token);
      const other = await createGroup(kith, owner.token);
      await make(group.id, { username: "chat", global_username: `${group.name}_talk` });
      const scoped = await call(kith, "POST", channels(group.id), owner.token, { username: "CHAT" });
      expect(scoped).toMatchObject({ status: 422, body: { code: "group.channel_username_taken" } });
      // The same scoped username in another group is another channel.
      const elsewhere = await make(other.id, { username: "chat" });
      expect(elsewhere.global_username).toBe(`${other.name}_chat`);
      for (const taken of [`${group.name.toUpperCase()}_TALK`, owner.account.username, other.name]) {
        const global = await call(kith, "POST", channels(group.id), owner.token, { username: "fresh", global_username: taken });
        expect(global).toMatchObject({ status: 422, body: { code: "group.channel_global_username_taken" } });
      }
      const renamed = await call(kith, "PATCH", channels(other.id, `/${elsewhere.id}`), owner.token, {
        global_username: `${group.name}_talk`,
      });
      expect(renamed).toMatchObject({ status: 422, body: { code: "group.channel_global_username_taken" } });
      const clash = await call(kith, "PATCH", channels(other.id, `/${elsewhere.id}`), owner.token, { username: "general" });
      expect(clash).toMatchObject({ status: 422, body: { code: "group.channel_username_taken" } });
      // Keeping one's own names is no clash.
      const same = await call(kith, "PATCH", channels(other.id, `/${elsewhere.id}`), owner.token, {
        username: "Chat",
        global_username: `${other.name}_chat`,
      });
      expect(same).toMatchObject({ status: 200, body: { username: "Chat" } });
      // A group may not be named as a channel is globally.
      const group2 = await call(kith, "POST", "/api/v1/groups", owner.token, { name: `${group.name}_talk` });
      expect(group2).toMatchObject({ status: 422, body: { code: "group.name_taken" } });
    });

    it("names a channel globally with a free variant when the plain name is taken", async () => {
      const group = await createGroup(kith, owner.token);
      await kith.createUser(`${group.name}_notes`.toLowerCase());
      const made = await make(group.id, { username: "notes" });
      expect(made.global_username).toBe(`${group.name}_notes_2`);
    });

    it("go with their group, nested ones, their statuses and their subscriptions too", async () => {
      const group = await openGroupWithMember();
      const top = await make(group.id, { username: "top" });
      await make(group.id, { username: "nested", parent_id: top.id });
      expect((await call(kith, "POST", channels(group.id, `/${top.id}/subscribe`), member.token)).status).toBe(200);
      await post(member, { status: "in a channel", group_id: group.id, channel_id: top.id });
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}`, owner.token)).status).toBe(200);
      expect(await groupTables().selectFrom("group_channels").select("id").where("group_id", "=", group.id).execute()).toEqual([]);
      const subscriptions = await groupTables()
        .selectFrom("group_channel_subscriptions")
        .select("channel_id")
        .where("channel_id", "=", top.id)
        .execute();
      expect(subscriptions).toEqual([]);
      expect(await timeline(top.id)).toMatchObject({ status: 404, body: { code: "group.channel_not_found" } });
    });

    it("refuses bad values (422), and a missing field or a value of the wrong type (400), in the error format", async () => {
      const group = await createGroup(kith, owner.token);
      const primary = await primaryOf(group.id);
      const bodies: [Record<string, unknown>, number][] = [
        [{ username: "" }, 422],
        [{ username: "has space" }, 422],
        [{ username: "a".repeat(31) }, 422],
        [{ username: "ok", global_username: "no-dash" }, 422],
        [{ username: "ok", display_name: "x".repeat(101) }, 422],
        [{}, 400],
        [{ username: "ok", parent_id: 5 }, 400],
        [{ username: "ok", auto_subscribe: "perhaps" }, 400],
      ];
      for (const [body, status] of bodies) {
        const answer = await call(kith, "POST", channels(group.id), owner.token, body);
        expect(answer.status, JSON.stringify(body)).toBe(status);
        expect(answer.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      }
      for (const [body, status] of [
        [{ username: "not valid" }, 422],
        [{ parent_id: "" }, 422],
        [{ primary: "sometimes" }, 400],
      ] as const) {
        const answer = await call(kith, "PATCH", channels(group.id, `/${primary.id}`), owner.token, body);
        expect(answer.status, JSON.stringify(body)).toBe(status);
      }
      expect((await list(group.id)).map((channel) => channel.username)).toEqual(["general"]);
    });

    it("needs GroupSettings.Manage in the group: 401, then 403 for a member and a stranger", async () => {
      const group = await openGroupWithMember();
      const primary = await primaryOf(group.id);
      const writes: [string, string, unknown][] = [
        ["POST", channels(group.id), { username: "mine" }],
        ["PATCH", channels(group.id, `/${primary.id}`), { display_name: "Mine" }],
        ["DELETE", channels(group.id, `/${primary.id}`), undefined],
      ];
      for (const [method, path, body] of writes) {
        expect((await call(kith, method, path, undefined, body)).status).toBe(401);
        for (const user of [member, stranger]) {
          expect(await call(kith, method, path, user.token, body)).toMatchObject({ status: 403, body: { code: "auth.forbidden" } });
        }
      }
      for (const path of [`/${primary.id}/subscribe`, `/${primary.id}/unsubscribe`]) {
        expect((await call(kith, "POST", channels(group.id, path))).status).toBe(401);
      }
    });
  });

  describe("a secret group's channels", () => {
    it("are 404 to anyone but its members, whatever the route", async () => {
      const group = await secretGroupWithMember();
      const primary = await primaryOf(group.id, member.token);
      const routes: [string, string, unknown][] = [
        ["GET", channels(group.id), undefined],
        ["POST", channels(group.id), { username: "leak" }],
        ["GET", channels(group.id, `/${primary.id}`), undefined],
        ["PATCH", channels(group.id, `/${primary.id}`), { note: "leak" }],
        ["DELETE", channels(group.id, `/${primary.id}`), undefined],
        ["POST", channels(group.id, `/${primary.id}/subscribe`), undefined],
        ["POST", channels(group.id, `/${primary.id}/unsubscribe`), undefined],
        ["GET", `/api/v1/timelines/channel/${primary.id}`, undefined],
      ];
      for (const [method, path, body] of routes) {
        for (const token of [undefined, stranger.token]) {
          const answer = await call(kith, method, path, token, body);
          if (token === undefined && method !== "GET") expect(answer.status).toBe(401);
          else expect(answer.status, `${method} ${path}`).toBe(404);
        }
      }
      expect((await timeline(primary.id, member.token)).status).toBe(200);
    });
  });

  describe("subscriptions", () => {
    it("subscribe a member to auto-subscribe channels on joining, and end them when it leaves or is removed", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "OPEN" });
      const auto = await make(group.id, { username: "announcements", auto_subscribe: true });
      const manual = await make(group.id, { username: "offtopic" });
      const joiner = await freshUser();
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, joiner.token)).status).toBe(200);
      const subscribed = (await list(group.id, joiner.token)).filter((channel) => channel.subscribed).map((channel) => channel.id);
      expect(subscribed.sort()).toEqual([auto.id, (await primaryOf(group.id)).id].sort());
      expect((await list(group.id, joiner.token)).find((channel) => channel.id === manual.id)?.subscribed).toBe(false);

      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, joiner.token)).status).toBe(200);
      expect((await list(group.id, joiner.token)).some((channel) => channel.subscribed)).toBe(false);

      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, joiner.token)).status).toBe(200);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/members/${joiner.account.id}`, owner.token)).status).toBe(200);
      expect((await list(group.id, joiner.token)).some((channel) => channel.subscribed)).toBe(false);
    });

    it("are a member's to make and end, again without error; a non-member is refused", async () => {
      const group = await openGroupWithMember();
      const channel = await make(group.id, { username: "music" });
      const path = (action: string) => channels(group.id, `/${channel.id}/${action}`);
      for (let i = 0; i < 2; i++) {
        expect(await call(kith, "POST", path("subscribe"), member.token)).toMatchObject({
          status: 200,
          body: { id: channel.id, subscribed: true },
        });
      }
      expect((await call(kith, "GET", channels(group.id, `/${channel.id}`), member.token)).body.subscribed).toBe(true);
      for (let i = 0; i < 2; i++) {
        expect(await call(kith, "POST", path("unsubscribe"), member.token)).toMatchObject({ status: 200, body: { subscribed: false } });
      }
      expect(await call(kith, "POST", path("subscribe"), stranger.token)).toMatchObject({
        status: 403,
        body: { code: "group.channel_members_only" },
      });
      expect(await call(kith, "POST", channels(group.id, `/${MISSING_CHANNEL}/subscribe`), member.token)).toMatchObject({
        status: 404,
        body: { code: "group.channel_not_found" },
      });
    });
  });

  describe("posting in channels", () => {
    it("posts in the named channel, else the primary one; a reply stays in its parent's channel", async () => {
      const group = await openGroupWithMember();
      const primary = await primaryOf(group.id);
      const channel = await make(group.id, { username: "questions" });
      const inChannel = await post(member, { status: "in the channel", group_id: group.id, channel_id: channel.id });
      const inPrimary = await post(member, { status: "in the primary", group_id: group.id });
      const reply = await post(owner, { status: "a reply", in_reply_to_id: inChannel });
      const namedReply = await post(owner, {
        status: "a named reply",
        in_reply_to_id: inChannel,
        group_id: group.id,
        channel_id: channel.id,
      });
      expect((await timeline(channel.id)).ids).toEqual([namedReply, reply, inChannel]);
      expect((await timeline(primary.id)).ids).toEqual([inPrimary]);
      const counts = Object.fromEntries((await list(group.id)).map((each) => [each.id, each.statuses_count]));
      expect(counts).toEqual({ [primary.id]: 1, [channel.id]: 3 });
      const groupTimeline = await call(kith, "GET", `/api/v1/timelines/group/${group.id}`);
      expect(groupTimeline.body.map((status: { id: string }) => status.id)).toEqual([namedReply, reply, inPrimary, inChannel]);

      expect((await call(kith, "DELETE", `/api/v1/statuses/${reply}`, owner.token)).status).toBe(200);
      await expect.poll(async () => (await call(kith, "GET", channels(group.id, `/${channel.id}`))).body.statuses_count).toBe(2);
    });

    it("refuses a channel of another group, a reply moved to another channel, and a channel without its group", async () => {
      const group = await openGroupWithMember();
      const other = await createGroup(kith, owner.token);
      const foreign = await make(other.id, { username: "foreign" });
      const local = await make(group.id, { username: "local" });
      const refusals: [Record<string, unknown>, string][] = [
        [{ status: "x", group_id: group.id, channel_id: foreign.id }, "group.channel_outside_group"],
        [{ status: "x", group_id: group.id, channel_id: MISSING_CHANNEL }, "group.channel_outside_group"],
        [{ status: "x", channel_id: local.id }, "group.channel_needs_group"],
      ];
      const root = await post(member, { status: "root", group_id: group.id });
      refusals.push([{ status: "x", in_reply_to_id: root, channel_id: local.id }, "group.reply_outside_channel"]);
      for (const [body, code] of refusals) {
        expect(await call(kith, "POST", "/api/v1/statuses", member.token, body)).toMatchObject({ status: 422, body: { code } });
      }
      expect((await call(kith, "GET", channels(other.id, `/${foreign.id}`))).body.statuses_count).toBe(0);
      // Not a member of the other group: its channel is no way in.
      expect(
        await call(kith, "POST", "/api/v1/statuses", member.token, { status: "x", group_id: other.id, channel_id: foreign.id }),
      ).toMatchObject({
        status: 403,
        body: { code: "group.members_only_posting" },
      });
    });

    it("moves a deleted channel's statuses to the primary channel", async () => {
      const group = await openGroupWithMember();
      const primary = await primaryOf(group.id);
      const channel = await make(group.id, { username: "temporary" });
      const posted = await post(member, { status: "in a channel soon gone", group_id: group.id, channel_id: channel.id });
      expect((await call(kith, "DELETE", channels(group.id, `/${channel.id}`), owner.token)).status).toBe(200);
      expect((await timeline(primary.id)).ids).toEqual([posted]);
      expect((await primaryOf(group.id)).statuses_count).toBe(1);
      expect(await timeline(channel.id)).toMatchObject({ status: 404, body: { code: "group.channel_not_found" } });
    });
  });

  describe("a channel's timeline", () => {
    it("pages with max_id, since_id, min_id, limit and a Link header", async () => {
      const group = await openGroupWithMember();
      const channel = await make(group.id, { username: "paged" });
      const posted: string[] = [];
      for (const text of ["one", "two", "three"])
        posted.push(await post(member, { status: text, group_id: group.id, channel_id: channel.id }));
      const first = await timeline(channel.id, member.token, "?limit=2");
      expect(first.ids).toEqual([posted[2], posted[1]]);
      const next = first.link?.match(/<([^>]+)>; rel="next"/)?.[1];
      expect(next).toContain(`max_id=${posted[1]}`);
      expect((await timeline(channel.id, member.token, new URL(next ?? "").search)).ids).toEqual([posted[0]]);
      expect((await timeline(channel.id, member.token, `?since_id=${posted[0]}&limit=1`)).ids).toEqual([posted[2]]);
      expect((await timeline(channel.id, member.token, `?min_id=${posted[0]}&limit=1`)).ids).toEqual([posted[1]]);
      expect(await timeline(MISSING_CHANNEL)).toMatchObject({ status: 404, body: { code: "group.channel_not_found" } });
    });

    it("shows a secret group's channel statuses to its members only", async () => {
      const group = await secretGroupWithMember();
      const primary = await primaryOf(group.id, member.token);
      const secret = await post(member, { status: "for members", group_id: group.id });
      expect((await timeline(primary.id, owner.token)).ids).toEqual([secret]);
      for (const token of [undefined, stranger.token]) expect((await timeline(primary.id, token)).status).toBe(404);
    });
  });

  describe("the channel stream", () => {
    const updates = (socket: StreamingSocket) =>
      socket.messages
        .filter((message) => message.event === "update" && message.stream?.[0] === "channel")
        .map((message) => ({ stream: message.stream, id: JSON.parse(message.payload ?? "{}").id as string }));
    async function listen(user: TestUser | undefined, channelId: string): Promise<StreamingSocket> {
      const socket = await openSocket(wsUrl(server), user ? [user.token] : undefined);
      socket.send({ type: "subscribe", stream: "channel", channel: channelId });
      await socket.settle();
      return socket;
    }

    it("streams a channel's new and edited statuses, and no other channel's", async () => {
      const group = await openGroupWithMember();
      const primary = await primaryOf(group.id);
      const channel = await make(group.id, { username: "live" });
      const guest = await listen(undefined, channel.id);
      const primarySocket = await listen(stranger, primary.id);
      await post(member, { status: "elsewhere", group_id: group.id });
      const here = await post(member, { status: "here", group_id: group.id, channel_id: channel.id });
      await eventually(() => expect(updates(guest)).toEqual([{ stream: ["channel", channel.id], id: here }]));
      await eventually(() => expect(updates(primarySocket)).toHaveLength(1));
      expect(updates(primarySocket)[0]?.id).not.toBe(here);
      expect((await call(kith, "PUT", `/api/v1/statuses/${here}`, member.token, { status: "here, edited" })).status).toBe(200);
      await eventually(() =>
        expect(guest.messages.filter((message) => message.event === "status.update").map((message) => message.stream)).toEqual([
          ["channel", channel.id],
        ]),
      );
      for (const socket of [guest, primarySocket]) socket.ws.close();
    });

    it("is refused without a channel, and for a secret group's channel to non-members", async () => {
      const group = await secretGroupWithMember();
      const primary = await primaryOf(group.id, member.token);
      const outsider = await listen(stranger, primary.id);
      expect(outsider.messages.filter((message) => message.status === 404)).toHaveLength(1);
      const memberSocket = await listen(member, primary.id);
      expect(memberSocket.messages.filter((message) => message.status === 404)).toHaveLength(0);
      const secret = await post(owner, { status: "members only", group_id: group.id });
      await eventually(() => expect(updates(memberSocket).map((update) => update.id)).toEqual([secret]));
      expect(updates(outsider)).toEqual([]);
      const missing = await kith.request("GET", "/api/v1/streaming?stream=channel", { token: member.token });
      expect(missing.status).toBe(400);
      await missing.body?.cancel();
      const hidden = await kith.request("GET", `/api/v1/streaming?stream=channel&channel=${primary.id}`, { token: stranger.token });
      expect(hidden.status).toBe(404);
      await hidden.body?.cancel();
      for (const socket of [outsider, memberSocket]) socket.ws.close();
    });
  });
});
