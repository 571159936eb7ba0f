/**
 * masto.js's streaming client (WebSocket, token as subprotocol) against a
 * running server, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, type TestUser } from "@kith/core/testing";
import { createStreamingAPIClient, type mastodon } from "masto";
import { type CompatServer, describeOnEngines, startCompatServer } from "../support/compat-server.js";

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
});
