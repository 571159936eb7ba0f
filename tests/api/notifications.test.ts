import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { INLINE_AUDIENCE } from "../../packages/core/src/modules/timelines/new-status-followers.js";
import { describeOnEngines } from "../support/engines.js";
import { bareLocalAccount, block, favourite, follow, mute, post } from "./timelines-fixtures.js";

interface NotificationJson {
  id: string;
  type: string;
  group_key: string;
  account: { id: string };
  status: { id: string } | null;
  read_at: string | null;
}

interface GroupedJson {
  accounts: { id: string }[];
  statuses: { id: string }[];
  notification_groups: {
    group_key: string;
    notifications_count: number;
    type: string;
    sample_account_ids: string[];
    status_id: string | null;
    most_recent_notification_id: string;
  }[];
}

describeOnEngines("notifications", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`nt${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function list(u: TestUser, query = ""): Promise<NotificationJson[]> {
    const response = await kith.request("GET", `/api/v1/notifications${query}`, { token: u.token });
    expect(response.status).toBe(200);
    return (await response.json()) as NotificationJson[];
  }

  it("mentions, follows, favourites and boosts notify, each with its account and post", async () => {
    const [alice, bob] = [await user(), await user()];
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:user:${alice.account.id}`, (m) => seen.push(m));
    await follow(kith, bob.account.id, alice.account.id);
    const mine = await post(kith, alice.account.id);
    const mention = await post(kith, bob.account.id, { mentions: [alice.account.id] });
    await favourite(kith, bob.account.id, mine);
    await post(kith, bob.account.id, { reblogOf: mine });
    await stop();
    const notifications = await list(alice);
    expect(notifications.map((n) => [n.type, n.account.id, n.status?.id ?? null])).toEqual([
      ["reblog", bob.account.id, mine],
      ["favourite", bob.account.id, mine],
      ["mention", bob.account.id, mention],
      ["follow", bob.account.id, null],
    ]);
    expect(seen.filter((m) => (m as { event: string }).event === "notification")).toHaveLength(4);
  });

  it("shows each sender as it is now: a changed name and changed counters, with the page's kept accounts", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const sender = async () => {
      const [first] = (await list(alice)) as (NotificationJson & { account: { display_name: string; followers_count: number } })[];
      return first?.account;
    };
    const before = await sender();
    expect(before?.id).toBe(bob.account.id);
    await kith.storage.db.updateTable("accounts").set({ display_name: "Bob Renamed" }).where("id", "=", bob.account.id).execute();
    expect((await sender())?.display_name).toBe("Bob Renamed");
    await kith.storage.db
      .updateTable("accounts")
      .set((eb) => ({ followers_count: eb("followers_count", "+", 7) }))
      .where("id", "=", bob.account.id)
      .execute();
    expect((await sender())?.followers_count).toBe((before?.followers_count ?? 0) + 7);
  });

  it("with min_id, gives the notifications just above it, newest first", async () => {
    const alice = await user();
    for (let i = 0; i < 4; i++) await follow(kith, (await user()).account.id, alice.account.id);
    const all = (await list(alice)).map((n) => n.id);
    expect(all).toHaveLength(4);
    const [n4, n3, n2, n1] = all;
    expect((await list(alice, `?min_id=${n1}&limit=2`)).map((n) => n.id)).toEqual([n3, n2]);
    expect((await list(alice, `?min_id=${n2}`)).map((n) => n.id)).toEqual([n4, n3]);
  });

  it("filters by types[], exclude_types[] and account_id, and pages with Link", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    await follow(kith, carol.account.id, alice.account.id);
    await post(kith, bob.account.id, { mentions: [alice.account.id] });
    expect((await list(alice, "?types[]=mention")).map((n) => n.type)).toEqual(["mention"]);
    expect((await list(alice, "?exclude_types[]=mention")).map((n) => n.type)).toEqual(["follow", "follow"]);
    expect((await list(alice, `?account_id=${carol.account.id}`)).map((n) => n.account.id)).toEqual([carol.account.id]);
    const page = await kith.request("GET", "/api/v1/notifications?limit=2", { token: alice.token });
    const ids = ((await page.json()) as NotificationJson[]).map((n) => n.id);
    expect(page.headers.get("link")).toContain(`max_id=${ids[1]}`);
    expect((await list(alice, `?max_id=${ids[1]}`)).map((n) => n.account.id)).toEqual([bob.account.id]);
  });

  it("posts of followed accounts with notify on, and replies under subscribed posts, notify as status", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id, { notify: true });
    const top = await post(kith, alice.account.id);
    expect((await list(bob, "?types[]=status")).map((n) => n.status?.id)).toEqual([top]);
    await kith.storage.db
      .insertInto("status_subscriptions")
      .values({
        id: kith.ids.next("subscription"),
        account_id: carol.account.id,
        status_id: top,
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    const reply = await post(kith, bob.account.id, { inReplyTo: { id: top, accountId: alice.account.id } });
    const deeper = await post(kith, alice.account.id, { inReplyTo: { id: reply, accountId: bob.account.id } });
    expect((await list(carol, "?types[]=status")).map((n) => n.status?.id)).toEqual([deeper, reply]);
  });

  it("a post made through the API tells the followers with notify, whether fan-out takes its followers inline or not", async () => {
    // A post's reactions share one read of the author's first followers; past INLINE_AUDIENCE, the notifications read
    // the subscribed ones apart, and the subscribed follower comes after the first page in account order.
    for (const others of [0, INLINE_AUDIENCE]) {
      const author = await user();
      for (let i = 0; i < others; i++) await follow(kith, await bareLocalAccount(kith, `nt_crowd${serial}_${i}`), author.account.id);
      const [subscribed, plain] = [await user(), await user()];
      await follow(kith, subscribed.account.id, author.account.id, { notify: true });
      await follow(kith, plain.account.id, author.account.id);
      const posted = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: `news for ${others}` } });
      expect(posted.status).toBe(200);
      const { id } = (await posted.json()) as { id: string };
      await eventually(async () => expect((await list(subscribed, "?types[]=status")).map((n) => n.status?.id)).toEqual([id]));
      expect(await list(plain, "?types[]=status"), `${others} others`).toEqual([]);
    }
  });

  it("nothing from accounts the recipient blocks or mutes with notifications", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    await block(kith, alice.account.id, bob.account.id);
    await mute(kith, alice.account.id, carol.account.id, true);
    await mute(kith, alice.account.id, dave.account.id, false);
    for (const from of [bob, carol, dave]) await post(kith, from.account.id, { mentions: [alice.account.id] });
    expect((await list(alice)).map((n) => n.account.id)).toEqual([dave.account.id]);
  });

  it("a muted conversation stays quiet", async () => {
    const [alice, bob] = [await user(), await user()];
    const root = await post(kith, alice.account.id, { conversationId: "thread-1" });
    await kith.storage.db
      .insertInto("conversation_mutes")
      .values({ account_id: alice.account.id, conversation_id: "thread-1", created_at: kith.clock.now().toISOString() })
      .execute();
    await post(kith, bob.account.id, {
      mentions: [alice.account.id],
      inReplyTo: { id: root, accountId: alice.account.id },
      conversationId: "thread-1",
    });
    await favourite(kith, bob.account.id, root);
    expect(await list(alice)).toEqual([]);
  });

  it("gets one, dismisses one, clears all; other people's are not found", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    await post(kith, bob.account.id, { mentions: [alice.account.id] });
    const [first, second] = await list(alice);
    const one = await kith.request("GET", `/api/v1/notifications/${first?.id}`, { token: alice.token });
    expect(await one.json()).toMatchObject({ id: first?.id, type: "mention" });
    expect((await kith.request("GET", `/api/v1/notifications/${first?.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("POST", `/api/v1/notifications/${first?.id}/dismiss`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("POST", `/api/v1/notifications/${first?.id}/dismiss`, { token: alice.token })).status).toBe(200);
    expect((await list(alice)).map((n) => n.id)).toEqual([second?.id]);
    expect((await kith.request("POST", "/api/v1/notifications/clear", { token: alice.token })).status).toBe(200);
    expect(await list(alice)).toEqual([]);
    expect((await kith.request("GET", "/api/v1/notifications")).status).toBe(401);
  });

  it("read state: mark one or all read and unread, filter by it, count unread, and the marker reads", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    for (const from of [bob, carol, dave]) await follow(kith, from.account.id, alice.account.id);
    const count = async (path = "/api/v1/notifications/unread_count"): Promise<number> =>
      ((await (await kith.request("GET", path, { token: alice.token })).json()) as { count: number }).count;
    expect(await count()).toBe(3);
    const [newest, middle, oldest] = await list(alice);
    const read = await kith.request("POST", `/api/v1/notifications/${middle?.id}/read`, { token: alice.token });
    expect(((await read.json()) as NotificationJson).read_at).not.toBeNull();
    expect((await list(alice, "?read=true")).map((n) => n.id)).toEqual([middle?.id]);
    expect((await list(alice, "?read=false")).map((n) => n.id)).toEqual([newest?.id, oldest?.id]);
    expect(await count()).toBe(2);
    await kith.request("POST", `/api/v1/notifications/${middle?.id}/unread`, { token: alice.token });
    expect(await count()).toBe(3);
    const all = await kith.request("POST", "/api/v1/notifications/read", { token: alice.token, json: { max_id: middle?.id } });
    expect(await all.json()).toEqual({ updated: 2 });
    expect(await count()).toBe(1);
    await kith.request("POST", "/api/v1/notifications/unread", { token: alice.token, json: {} });
    expect(await count()).toBe(3);
    await kith.request("POST", "/api/v1/markers", { token: alice.token, json: { notifications: { last_read_id: newest?.id } } });
    expect(await count()).toBe(0);
    expect((await kith.request("POST", "/api/v1/notifications/no_00000000000000000000000000/read", { token: alice.token })).status).toBe(
      404,
    );
  });

  it("a favourite through the API tells the author once, on their stream and in one v2 group; one's own tells no one", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    const mine = await post(kith, alice.account.id);
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:user:${alice.account.id}`, (m) => seen.push(m));
    const like = async (u: TestUser) => {
      const response = await kith.request("POST", `/api/v1/statuses/${mine}/favourite`, { token: u.token });
      expect(response.status).toBe(200);
    };
    await like(bob);
    await like(bob);
    await like(carol);
    await like(alice);
    await stop();
    const told = await list(alice);
    expect(told.map((n) => [n.type, n.account.id, n.status?.id ?? null])).toEqual([
      ["favourite", carol.account.id, mine],
      ["favourite", bob.account.id, mine],
    ]);
    const announced = seen.filter((m) => (m as { event: string }).event === "notification");
    expect(announced.map((m) => (m as { notificationId: string }).notificationId)).toEqual(told.map((n) => n.id).reverse());
    const grouped = await kith.request("GET", "/api/v2/notifications", { token: alice.token });
    expect(((await grouped.json()) as GroupedJson).notification_groups.map((g) => [g.type, g.notifications_count])).toEqual([
      ["favourite", 2],
    ]);
  });

  it("v2 groups favourites and boosts of one post and follows", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    const mine = await post(kith, alice.account.id);
    for (const from of [bob, carol]) await favourite(kith, from.account.id, mine);
    for (const from of [bob, carol, dave]) await follow(kith, from.account.id, alice.account.id);
    await post(kith, dave.account.id, { mentions: [alice.account.id] });
    const response = await kith.request("GET", "/api/v2/notifications", { token: alice.token });
    expect(response.status).toBe(200);
    const body = (await response.json()) as GroupedJson;
    expect(body.notification_groups.map((g) => [g.type, g.notifications_count])).toEqual([
      ["mention", 1],
      ["follow", 3],
      ["favourite", 2],
    ]);
    const favourites = body.notification_groups[2];
    expect(favourites?.sample_account_ids).toEqual([carol.account.id, bob.account.id]);
    expect(favourites?.status_id).toBe(mine);
    expect(body.statuses.map((s) => s.id)).toContain(mine);
    expect(body.accounts.map((a) => a.id).sort()).toEqual([bob.account.id, carol.account.id, dave.account.id].sort());
    const ungrouped = await kith.request("GET", "/api/v2/notifications?grouped_types[]=favourite", { token: alice.token });
    expect(((await ungrouped.json()) as GroupedJson).notification_groups.map((g) => g.type)).toEqual([
      "mention",
      "follow",
      "follow",
      "follow",
      "favourite",
    ]);
    const one = await kith.request("GET", `/api/v2/notifications/${favourites?.group_key}`, { token: alice.token });
    expect(((await one.json()) as GroupedJson).notification_groups[0]).toMatchObject({ notifications_count: 2, type: "favourite" });
    const unread = await kith.request("GET", "/api/v2/notifications/unread_count", { token: alice.token });
    expect(await unread.json()).toEqual({ count: 3 });
    const accounts = await kith.request("GET", `/api/v2/notifications/${favourites?.group_key}/accounts`, { token: alice.token });
    expect(((await accounts.json()) as { id: string }[]).map((a) => a.id)).toEqual([carol.account.id, bob.account.id]);
    expect((await kith.request("GET", `/api/v2/notifications/${favourites?.group_key}/accounts`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("GET", `/api/v2/notifications/${favourites?.group_key}/accounts`)).status).toBe(401);
    expect((await kith.request("POST", `/api/v2/notifications/${favourites?.group_key}/dismiss`, { token: alice.token })).status).toBe(200);
    expect((await kith.request("GET", `/api/v2/notifications/${favourites?.group_key}`, { token: alice.token })).status).toBe(404);
    expect((await kith.request("POST", `/api/v2/notifications/${favourites?.group_key}/dismiss`, { token: bob.token })).status).toBe(404);
  });

  it("v2 pages by groups through Link headers", async () => {
    const [alice, ...others] = [await user(), await user(), await user(), await user()];
    for (const from of others) await post(kith, from.account.id, { mentions: [alice.account.id] });
    const first = await kith.request("GET", "/api/v2/notifications?limit=2", { token: alice.token });
    const body = (await first.json()) as GroupedJson;
    expect(body.notification_groups).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1] ?? "";
    const url = new URL(next);
    const second = await kith.request("GET", url.pathname + url.search, { token: alice.token });
    const rest = (await second.json()) as GroupedJson;
    expect(rest.notification_groups.map((g) => g.sample_account_ids[0])).toEqual([others[0]?.account.id]);
  });

  it("a follow request notifies; answering it removes that notification without a follow notification", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    for (const from of [bob, carol]) {
      await kith.services.events.emit({ type: "follow.requested", accountId: from.account.id, targetAccountId: alice.account.id });
    }
    expect((await list(alice)).map((n) => n.type)).toEqual(["follow_request", "follow_request"]);
    await follow(kith, bob.account.id, alice.account.id);
    await kith.services.events.emit({ type: "follow.rejected", accountId: carol.account.id, targetAccountId: alice.account.id });
    expect(await list(alice)).toEqual([]);
  });

  it("admin sign-up notifications reach holders of Users or Signups roles", async () => {
    const admin = await kith.createUser(`ntadmin${++serial}`, { role: "Admin" });
    const newcomer = await user();
    await kith.services.notifications.notifyAdminsOfSignUp(newcomer.account.id);
    expect((await list(admin, "?types[]=admin.sign_up")).map((n) => n.account.id)).toEqual([newcomer.account.id]);
    expect(await list(newcomer)).toEqual([]);
  });

  it("poll ends notify voters and the author; edits notify those who boosted", async () => {
    const [alice, bob] = [await user(), await user()];
    const question = await post(kith, alice.account.id);
    const pollId = kith.ids.next("poll");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("polls")
      .values({
        id: pollId,
        status_id: question,
        account_id: alice.account.id,
        options: JSON.stringify(["a", "b"]),
        cached_tallies: JSON.stringify([1, 0]),
        expires_at: now,
        closed_at: null,
        created_at: now,
        updated_at: now,
      } as never)
      .execute();
    await kith.storage.db
      .insertInto("poll_votes")
      .values({ id: kith.ids.next("pollVote"), poll_id: pollId, account_id: bob.account.id, choice: 0, uri: null, created_at: now })
      .execute();
    await kith.services.events.emit({ type: "poll.closed", pollId, statusId: question });
    expect((await list(bob, "?types[]=poll")).map((n) => n.status?.id)).toEqual([question]);
    expect((await list(alice, "?types[]=poll")).map((n) => n.status?.id)).toEqual([question]);
    await post(kith, bob.account.id, { reblogOf: question });
    await kith.services.events.emit({ type: "status.updated", statusId: question, accountId: alice.account.id });
    expect((await list(bob, "?types[]=update")).map((n) => n.account.id)).toEqual([alice.account.id]);
  });
});
