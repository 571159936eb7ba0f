/**
 * masto.js's streaming client (WebSocket, token as subprotocol) against a
 * running server, on SQLite and PostgreSQL: public, local, hashtag, user,
 * notification, list and direct streams; update, delete, notification,
 * status.update and conversation events; unsubscribe.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestUser } from "@kith/core/testing";
import { follow } from "../api/timelines-fixtures.js";
import { createStreamingAPIClient, type mastodon } from "masto";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

/** The next event of a subscription that passes `wanted`, or a timeout. */
async function next(
  iterator: AsyncIterator<mastodon.streaming.Event>,
  wanted: (event: mastodon.streaming.Event) => boolean,
): Promise<mastodon.streaming.Event> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("No stream event in time")), Math.max(0, deadline - Date.now()))),
    ]);
    if (result.done) throw new Error("The stream ended");
    if (wanted(result.value)) return result.value;
  }
}

describeOnEngines("masto.js streaming", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;
  const clients: mastodon.streaming.Client[] = [];

  function streaming(user?: TestUser): mastodon.streaming.Client {
    const client = createStreamingAPIClient({ streamingApiUrl: compat.url.replace(/^http/, "ws"), accessToken: user?.token, retry: false });
    clients.push(client);
    return client;
  }

  /** Waits until the server holds `count` subscriptions, so what is posted next reaches them. */
  async function subscribed(count: number): Promise<void> {
    await eventually(() => expect(compat.kith.services.streaming.webSocketSubscriptions).toBeGreaterThanOrEqual(count));
  }

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("mastostreamalice");
    bob = await compat.kith.createUser("mastostreambob");
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await compat?.close();
  });

  it("receives public posts, hashtag posts and deletions", async () => {
    const client = streaming(alice);
    const publicEvents = client.public.subscribe().values();
    const tagEvents = client.hashtag.subscribe({ tag: "Compat" }).values();
    const firstPublic = publicEvents.next();
    const firstTag = tagEvents.next();
    await subscribed(2);
    const status = await compat.client(bob).v1.statuses.create({ status: "hello #compat from masto" });
    const [publicEvent, tagEvent] = await Promise.all([firstPublic, firstTag]);
    expect(publicEvent.value).toMatchObject({
      event: "update",
      stream: ["public"],
      payload: { id: status.id, content: expect.stringContaining("hello") },
    });
    expect(tagEvent.value).toMatchObject({ event: "update", stream: ["hashtag", "Compat"], payload: { id: status.id } });
    await compat.client(bob).v1.statuses.$select(status.id).remove();
    expect(await next(publicEvents, (e) => e.event === "delete")).toMatchObject({ event: "delete", payload: status.id });
  });

  it("receives the user's home updates and notifications", async () => {
    const client = streaming(alice);
    const before = compat.kith.services.streaming.webSocketSubscriptions;
    const user = client.user.subscribe().values();
    const notifications = client.user.notification.subscribe().values();
    const firstUpdate = next(user, (e) => e.event === "update");
    const firstNotification = next(notifications, (e) => e.event === "notification");
    await subscribed(before + 2);
    const own = await compat.client(alice).v1.statuses.create({ status: "for my home stream" });
    expect((await firstUpdate).payload).toMatchObject({ id: own.id });
    await compat.client(bob).v1.statuses.$select(own.id).favourite();
    expect((await firstNotification).payload).toMatchObject({ type: "favourite", account: { id: bob.account.id }, status: { id: own.id } });
  });

  it("streams a list, edits as status.update on the local stream, and direct conversations", async () => {
    await follow(compat.kith, alice.account.id, bob.account.id);
    const list = await compat.client(alice).v1.lists.create({ title: "Bob" });
    await compat
      .client(alice)
      .v1.lists.$select(list.id)
      .accounts.create({ accountIds: [bob.account.id] });
    const client = streaming(alice);
    const before = compat.kith.services.streaming.webSocketSubscriptions;
    const listEvents = client.list.subscribe({ list: list.id }).values();
    const localEvents = client.public.local.subscribe().values();
    const directEvents = client.direct.subscribe().values();
    // masto.js subscribes when a stream is first read: start reading all three before posting.
    const listed = next(listEvents, (e) => e.event === "update");
    const updated = next(localEvents, (e) => e.event === "status.update");
    const conversed = next(directEvents, (e) => e.event === "conversation");
    await subscribed(before + 3);

    const status = await compat.client(bob).v1.statuses.create({ status: "for the list" });
    expect(await listed).toMatchObject({ event: "update", stream: ["list", list.id], payload: { id: status.id } });
    await compat.client(bob).v1.statuses.$select(status.id).update({ status: "for the list, edited" });
    const update = await updated;
    expect(update).toMatchObject({ stream: ["public:local"], payload: { id: status.id, content: expect.stringContaining("edited") } });

    const dm = await compat.client(bob).v1.statuses.create({ status: "@mastostreamalice between us", visibility: "direct" });
    const conversation = await conversed;
    expect(conversation).toMatchObject({
      stream: ["direct"],
      payload: { lastStatus: { id: dm.id }, accounts: [expect.objectContaining({ id: bob.account.id })] },
    });
  });

  it("stops sending a stream once unsubscribed, and refuses a list that is not the viewer's", async () => {
    const client = streaming(bob);
    const before = compat.kith.services.streaming.webSocketSubscriptions;
    const subscription = client.hashtag.subscribe({ tag: "quiet" });
    const events = subscription.values();
    const first = next(events, (e) => e.event === "update");
    await subscribed(before + 1);
    const loud = await compat.client(alice).v1.statuses.create({ status: "#quiet please" });
    expect((await first).payload).toMatchObject({ id: loud.id });
    subscription.unsubscribe();
    await eventually(() => expect(compat.kith.services.streaming.webSocketSubscriptions).toBe(before));

    const others = await compat.client(alice).v1.lists.create({ title: "not bob's" });
    const refused = await fetch(new URL(`/api/v1/streaming/list?list=${others.id}`, compat.url), {
      headers: { authorization: `Bearer ${bob.token}` },
    });
    expect(refused.status).toBe(404);
    await refused.body?.cancel();
  });
});
