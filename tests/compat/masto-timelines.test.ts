/**
 * masto.js over real HTTP on both engines: home after a follow and a post,
 * public and hashtag timelines, lists, markers, conversations, and
 * notifications v1 and v2.
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { follow } from "../api/timelines-fixtures.js";
import { type CompatServer, describeOnEngines, startCompatServer } from "../support/compat-server.js";

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
});
