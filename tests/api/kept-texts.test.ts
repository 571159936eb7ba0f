/**
 * Timeline and notification answers are assembled from JSON texts kept
 * between requests (StatusViews and AccountViews keep each post's and
 * account's text while what it was made from is the same). Each answer must
 * be byte for byte the JSON of the same entities rendered afresh (by views
 * that keep nothing yet), after every kind of write that changes how a post
 * or its author looks, on both engines.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertCompletedMedia } from "../support/completed-media.js";
import { describeOnEngines } from "../support/engines.js";
import { AccountViews } from "../../packages/core/src/modules/accounts/account-views.js";
import { StatusViews } from "../../packages/core/src/modules/statuses/status-views.js";

describeOnEngines("timeline and notification answers from kept texts", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    [alice, bob, carol, dave] = [
      await kith.createUser("txt_alice"),
      await kith.createUser("txt_bob"),
      await kith.createUser("txt_carol"),
      await kith.createUser("txt_dave"),
    ];
  });
  afterAll(() => kith.close());

  async function call(user: TestUser, method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
    const response = await kith.request(method, path, { token: user.token, ...(json !== undefined && { json }) });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return (await response.json()) as Record<string, unknown>;
  }

  async function posted(user: TestUser, json: Record<string, unknown>): Promise<string> {
    return String((await call(user, "POST", "/api/v1/statuses", json)).id);
  }

  /** The answer to `path` for `viewer`, and the JSON of its posts rendered afresh (no kept texts involved). */
  async function answerAndFresh(path: string, viewer: TestUser | null): Promise<{ text: string; fresh: string; ids: string[] }> {
    const response = await kith.request("GET", path, viewer ? { token: viewer.token } : {});
    expect(response.status).toBe(200);
    const text = await response.text();
    const ids = (JSON.parse(text) as { id: string }[]).map((status) => status.id);
    const fresh = JSON.stringify(await freshViews().renderList(ids, viewer?.account.id ?? null));
    return { text, fresh, ids };
  }

  /** Views of posts and accounts made for one render, so nothing they give was kept from an earlier one. */
  function freshViews(): StatusViews {
    const media = kith.services.media;
    return new StatusViews(kith, new AccountViews(kith, media), media);
  }

  /** Alice's notifications, and their JSON rendered afresh. */
  async function notificationsAndFresh(): Promise<{ text: string; fresh: string }> {
    const response = await kith.request("GET", "/api/v1/notifications?limit=40", { token: alice.token });
    expect(response.status).toBe(200);
    const records = await kith.services.notifications.list(alice.account.id, {}, { limit: 40 });
    const fresh = JSON.stringify(await kith.services.notificationViews.render(records, alice.account.id));
    return { text: await response.text(), fresh };
  }

  /** Home (bob), public as bob and as a guest, alice's notifications: each twice, so the second answer comes from kept texts. */
  async function expectFresh(step: string): Promise<string[]> {
    let homeIds: string[] = [];
    for (let round = 0; round < 2; round++) {
      const home = await answerAndFresh("/api/v1/timelines/home?limit=40", bob);
      expect(home.text, `home after ${step}`).toBe(home.fresh);
      homeIds = home.ids;
      const signedIn = await answerAndFresh("/api/v1/timelines/public?limit=40", bob);
      expect(signedIn.text, `public after ${step}`).toBe(signedIn.fresh);
      const guest = await answerAndFresh("/api/v1/timelines/public?limit=40", null);
      expect(guest.text, `public to a guest after ${step}`).toBe(guest.fresh);
      const notifications = await notificationsAndFresh();
      expect(notifications.text, `notifications after ${step}`).toBe(notifications.fresh);
    }
    return homeIds;
  }

  it("equal the posts rendered afresh after every kind of write", async () => {
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    await call(bob, "POST", `/api/v1/accounts/${carol.account.id}/follow`);
    const daves = await posted(dave, { status: "Dave's, boosted into bob's home" });
    const first = await posted(alice, { status: "First, mentioning @txt_carol #kept", visibility: "public" });
    const polled = await posted(alice, { status: "A poll", poll: { options: ["yes", "no"], expires_in: 3600 } });
    const carols = await posted(carol, { status: "Carol's own" });
    expect(await expectFresh("posting")).toEqual([carols, polled, first]);

    await call(bob, "POST", `/api/v1/statuses/${first}/favourite`);
    await expectFresh("a favourite");
    await call(carol, "POST", `/api/v1/statuses/${first}/favourite`);
    await expectFresh("someone else's favourite");
    await call(bob, "POST", `/api/v1/statuses/${first}/bookmark`);
    await expectFresh("a bookmark");
    await call(carol, "POST", `/api/v1/statuses/${first}/reblog`);
    await expectFresh("someone else's boost");
    const boost = String((await call(carol, "POST", `/api/v1/statuses/${daves}/reblog`)).id);
    await kith.services.events.settled();
    expect(await expectFresh("a boost into the reader's home")).toContain(boost);
    await call(bob, "POST", `/api/v1/statuses/${daves}/favourite`);
    await call(dave, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Dave Renamed" });
    await expectFresh("a favourite of the boosted post and its author's new name");
    await call(bob, "POST", `/api/v1/statuses/${first}/reblog`);
    await expectFresh("the reader's boost");
    await posted(carol, { status: "A reply", in_reply_to_id: first });
    await expectFresh("a reply");
    await call(alice, "PUT", `/api/v1/statuses/${first}`, { status: "First, edited" });
    await expectFresh("an edit");
    // The post was kept as one without media: an edit that attaches some must show them.
    const media = await insertCompletedMedia(kith, alice.account.id, "md_000000000000000000000txt01");
    await call(alice, "PUT", `/api/v1/statuses/${first}`, { status: "First, with media", media_ids: [media] });
    await expectFresh("an edit attaching media");
    // Another process's edit in the same millisecond leaves `updated_at` as it was; it may change the mentions too.
    await kith.storage.db
      .insertInto("mentions")
      .values({ status_id: first, account_id: dave.account.id, created_at: new Date().toISOString() })
      .execute();
    await kith.storage.db
      .updateTable("statuses")
      .set({ content: "<p>Edited again, same millisecond, @txt_dave</p>" })
      .where("id", "=", first)
      .execute();
    await kith.storage.db
      .updateTable("accounts")
      .set({ display_name: "Alice, same millisecond" })
      .where("id", "=", alice.account.id)
      .execute();
    await expectFresh("writes that left updated_at as it was");
    await call(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice Renamed", note: "New note" });
    await expectFresh("a profile change");
    await call(carol, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    await expectFresh("a new follower of the author");
    await posted(alice, { status: "Counting up" });
    await expectFresh("another post by the author");
    const poll = (await call(bob, "GET", `/api/v1/statuses/${polled}`)).poll as { id: string };
    await call(bob, "POST", `/api/v1/polls/${poll.id}/votes`, { choices: [0] });
    await expectFresh("a vote");
    await call(carol, "POST", `/api/v1/statuses/${first}/unfavourite`);
    await call(carol, "POST", `/api/v1/statuses/${first}/unreblog`);
    await expectFresh("an unfavourite and an unboost");
    await call(alice, "DELETE", `/api/v1/statuses/${polled}`);
    expect(await expectFresh("a deletion")).not.toContain(polled);
  });
});
