/**
 * masto.js over real HTTP on both engines: home after a follow and a post,
 * public (local, remote, only media) and hashtag timelines, lists, markers,
 * conversations, and notifications v1 and v2 (types, read state, unread
 * counts, group accounts, dismiss, clear).
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { follow, post, remoteAccount } from "../api/timelines-fixtures.js";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";
import { insertCompletedMedia } from "../support/completed-media.js";

describeOnEngines("masto.js timelines, lists, markers, conversations, notifications", (engine) => {
  let server: CompatServer;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    server = await startCompatServer(engine);
    alice = await server.kith.createUser("alice");
    bob = await server.kith.createUser("bob");
    carol = await server.kith.createUser("carol");
    await follow(server.kith, bob.account.id, alice.account.id);
    await follow(server.kith, carol.account.id, alice.account.id);
  }, 60_000);
  afterAll(() => server?.close());

  it("home shows a followed account's new post; public and hashtag timelines show it to guests", async () => {
    const status = await server.client(alice).v1.statuses.create({ status: "Hello #kith", visibility: "public" });
    const home = await server.client(bob).v1.timelines.home.list({ limit: 5 });
    expect(home.map((s) => s.id)).toContain(status.id);
    const guest = server.client();
    expect((await guest.v1.timelines.public.list({ local: true })).map((s) => s.id)).toContain(status.id);
    expect((await guest.v1.timelines.tag.$select("kith").list()).map((s) => s.id)).toEqual([status.id]);
  });

  it("pages home with the Link header", async () => {
    for (let i = 0; i < 3; i++) await server.client(alice).v1.statuses.create({ status: `page ${i}` });
    const paginator = server.client(bob).v1.timelines.home.list({ limit: 2 }).values();
    const first = await paginator.next();
    const second = await paginator.next();
    expect(first.value).toHaveLength(2);
    expect(second.value?.length).toBeGreaterThan(0);
    expect(second.value?.[0]?.id < (first.value?.[1]?.id ?? "")).toBe(true);
  });

  it("lists: create, add a followed account, read its timeline", async () => {
    const client = server.client(bob);
    const list = await client.v1.lists.create({ title: "Alice" });
    await client.v1.lists.$select(list.id).accounts.create({ accountIds: [alice.account.id] });
    const members = await client.v1.lists.$select(list.id).accounts.list();
    expect(members.map((a) => a.id)).toEqual([alice.account.id]);
    const status = await server.client(alice).v1.statuses.create({ status: "for the list" });
    const timeline = await client.v1.timelines.list.$select(list.id).list();
    expect(timeline[0]?.id).toBe(status.id);
    const updated = await client.v1.lists.$select(list.id).update({ title: "Alice only", exclusive: true });
    expect(updated).toMatchObject({ title: "Alice only", exclusive: true });
    await expect(client.v1.lists.$select(list.id).accounts.create({ accountIds: [carol.account.id] })).rejects.toThrow();
    await client.v1.lists.$select(list.id).remove();
    expect(await client.v1.lists.list()).toEqual([]);
  });

  it("markers: save and read back", async () => {
    const client = server.client(bob);
    const saved = await client.v1.markers.create({ home: { lastReadId: "st_0000000000000000000000000a" } });
    expect(saved.home?.lastReadId).toBe("st_0000000000000000000000000a");
    const read = await client.v1.markers.fetch({ timeline: ["home", "notifications"] });
    expect(read.home?.version).toBe(0);
    expect(read.notifications).toBeUndefined();
  });

  it("conversations: a direct post, read, removed", async () => {
    const dm = await server.client(alice).v1.statuses.create({ status: "@carol psst", visibility: "direct" });
    const conversations = await server.client(carol).v1.conversations.list();
    const conversation = conversations.find((c) => c.lastStatus?.id === dm.id);
    expect(conversation?.unread).toBe(true);
    expect(conversation?.accounts.map((a) => a.id)).toEqual([alice.account.id]);
    const read = await server
      .client(carol)
      .v1.conversations.$select(conversation?.id ?? "")
      .read();
    expect(read.unread).toBe(false);
    await server
      .client(carol)
      .v1.conversations.$select(conversation?.id ?? "")
      .remove();
    expect((await server.client(carol).v1.conversations.list()).find((c) => c.id === conversation?.id)).toBeUndefined();
  });

  it("notifications v1: mention and favourite, fetched, counted, dismissed, cleared", async () => {
    const client = server.client(alice);
    await client.v1.notifications.clear();
    const mine = await client.v1.statuses.create({ status: "like me" });
    await server.client(bob).v1.statuses.$select(mine.id).favourite();
    await server.client(carol).v1.statuses.create({ status: "@alice hi" });
    const notifications = await client.v1.notifications.list();
    expect(notifications.map((n) => n.type)).toEqual(["mention", "favourite"]);
    const [mention, fav] = notifications;
    expect(fav?.status?.id).toBe(mine.id);
    expect((await client.v1.notifications.$select(mention?.id ?? "").fetch()).account.id).toBe(carol.account.id);
    expect((await client.v1.notifications.unreadCount.fetch()).count).toBe(2);
    expect((await client.v1.notifications.list({ types: ["favourite"] })).map((n) => n.id)).toEqual([fav?.id]);
    await client.v1.notifications.$select(mention?.id ?? "").dismiss();
    expect((await client.v1.notifications.list()).map((n) => n.id)).toEqual([fav?.id]);
    await client.v1.notifications.clear();
    expect(await client.v1.notifications.list()).toEqual([]);
  });

  it("notifications v2: favourites of one post fold into one group", async () => {
    const client = server.client(alice);
    const mine = await client.v1.statuses.create({ status: "group me" });
    await server.client(bob).v1.statuses.$select(mine.id).favourite();
    await server.client(carol).v1.statuses.$select(mine.id).favourite();
    const page = await client.v2.notifications.list();
    const group = page.notificationGroups.find((g) => g.type === "favourite");
    expect(group?.notificationsCount).toBe(2);
    // masto.js declares sampleAccountIds as a string; Mastodon (and Kith) send an array of ids.
    expect([...((group?.sampleAccountIds ?? []) as unknown as string[])].sort()).toEqual([bob.account.id, carol.account.id].sort());
    expect(page.statuses.map((s) => s.id)).toContain(mine.id);
    const one = await client.v2.notifications.$select(group?.groupKey ?? "").fetch();
    expect(one.notificationGroups[0]?.groupKey).toBe(group?.groupKey);
    expect((await client.v2.notifications.unreadCount.fetch()).count).toBeGreaterThan(0);
    await client.v2.notifications.$select(group?.groupKey ?? "").dismiss();
    expect((await client.v2.notifications.list()).notificationGroups.find((g) => g.groupKey === group?.groupKey)).toBeUndefined();
  });

  it("public timelines: local, remote and only media; followers-only posts never shown there", async () => {
    const remote = await remoteAccount(server.kith, "farposter", "far.example");
    const remoteStatus = await post(server.kith, remote, { local: false, tags: ["kithremote"] });
    await insertCompletedMedia(server.kith, alice.account.id, "md_0000000000000000000000compat");
    const withMedia = await server.client(alice).v1.statuses.create({ mediaIds: ["md_0000000000000000000000compat"], status: "a picture" });
    const secret = await server.client(alice).v1.statuses.create({ status: "followers only", visibility: "private" });
    const guest = server.client();
    const everything = (await guest.v1.timelines.public.list({ limit: 40 })).map((s) => s.id);
    expect(everything).toEqual(expect.arrayContaining([remoteStatus, withMedia.id]));
    expect(everything).not.toContain(secret.id);
    expect((await guest.v1.timelines.public.list({ remote: true })).map((s) => s.id)).toEqual([remoteStatus]);
    const local = (await guest.v1.timelines.public.list({ local: true, limit: 40 })).map((s) => s.id);
    expect(local).toContain(withMedia.id);
    expect(local).not.toContain(remoteStatus);
    const media = await guest.v1.timelines.public.list({ onlyMedia: true });
    expect(media.map((s) => s.id)).toEqual([withMedia.id]);
    expect(media[0]?.mediaAttachments.map((m) => m.id)).toEqual(["md_0000000000000000000000compat"]);
    expect((await guest.v1.timelines.tag.$select("kithremote").list({ local: true })).map((s) => s.id)).toEqual([]);
    expect((await guest.v1.timelines.tag.$select("kithremote").list()).map((s) => s.id)).toEqual([remoteStatus]);
    // Followers see the followers-only post at home; the guest sees nothing of it.
    expect((await server.client(bob).v1.timelines.home.list({ limit: 40 })).map((s) => s.id)).toContain(secret.id);
    await expect(guest.v1.statuses.$select(secret.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    await expect(guest.v1.timelines.home.list()).rejects.toMatchObject({ statusCode: 401 });
  });

  it("notifications: follow requests, types and exclude_types, read state, group accounts, notifications marker", async () => {
    const dora = await server.kith.createUser("dora");
    const client = server.client(dora);
    await client.v1.accounts.updateCredentials({ locked: true });
    await server.client(bob).v1.accounts.$select(dora.account.id).follow();
    const mine = await client.v1.statuses.create({ status: "dora's post" });
    await server.client(alice).v1.statuses.$select(mine.id).reblog();
    await server.client(bob).v1.statuses.$select(mine.id).reblog();
    await server.client(carol).v1.statuses.create({ status: "@dora hello" });

    expect((await client.v1.notifications.list()).map((n) => n.type)).toEqual(["mention", "reblog", "reblog", "follow_request"]);
    expect((await client.v1.notifications.list({ excludeTypes: ["reblog"] })).map((n) => n.type)).toEqual(["mention", "follow_request"]);
    expect((await client.v1.notifications.list({ accountId: carol.account.id })).map((n) => n.type)).toEqual(["mention"]);
    const v2 = await client.v2.notifications.list({ types: ["reblog"] });
    expect(v2.notificationGroups.map((g) => [g.type, g.notificationsCount])).toEqual([["reblog", 2]]);
    const groupKey = v2.notificationGroups[0]?.groupKey ?? "";
    const accounts = await client.v2.notifications.$select(groupKey).accounts.fetch();
    expect(accounts.map((a) => a.id)).toEqual([bob.account.id, alice.account.id]);

    // Read state (Kith): the notifications marker marks what it passes read; filters and counts follow.
    const [newest, , , oldest] = await client.v1.notifications.list();
    expect((await client.v1.notifications.unreadCount.fetch()).count).toBe(4);
    await client.v1.markers.create({ notifications: { lastReadId: oldest?.id ?? "" } });
    expect((await client.v1.markers.fetch({ timeline: ["notifications"] })).notifications?.lastReadId).toBe(oldest?.id);
    expect((await client.v1.notifications.unreadCount.fetch()).count).toBe(3);
    const unreadOnly = await client.v1.notifications.list({ read: false } as Record<string, unknown>);
    expect(unreadOnly.map((n) => n.id)).not.toContain(oldest?.id);
    const markAll = await fetch(new URL("/api/v1/notifications/read", server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${dora.token}` },
    });
    expect(markAll.status).toBe(200);
    expect((await client.v1.notifications.unreadCount.fetch()).count).toBe(0);
    expect((await client.v2.notifications.unreadCount.fetch()).count).toBe(0);
    const markOne = await fetch(new URL(`/api/v1/notifications/${newest?.id}/unread`, server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${dora.token}` },
    });
    expect(((await markOne.json()) as { read_at: string | null }).read_at).toBeNull();
    expect((await client.v1.notifications.list({ read: false } as Record<string, unknown>)).map((n) => n.id)).toEqual([newest?.id]);

    // Answering the request removes its notification.
    await client.v1.followRequests.$select(bob.account.id).authorize();
    expect((await client.v1.notifications.list({ types: ["follow_request"] })).length).toBe(0);
    await expect(
      server
        .client(bob)
        .v1.notifications.$select(newest?.id ?? "")
        .fetch(),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});
