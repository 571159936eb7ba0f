import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { block, follow, idsOf, mute, post, remoteAccount, unfollow } from "./timelines-fixtures.js";

describeOnEngines("timelines", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`tl${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const home = async (u: TestUser, query = ""): Promise<string[]> => {
    const response = await kith.request("GET", `/api/v1/timelines/home${query}`, { token: u.token });
    expect(response.status).toBe(200);
    return idsOf(response);
  };

  it("home shows the caller's own posts and those of accounts they follow", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const first = await post(kith, alice.account.id);
    const own = await post(kith, bob.account.id);
    const stranger = await post(kith, carol.account.id);
    const ids = await home(bob);
    expect(ids).toEqual([own, first]);
    expect(ids).not.toContain(stranger);
    expect(await home(alice)).toEqual([first]);
  });

  it("a new post is in its author's home when creating returns; followers get it once the reactions after the answer have run", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const id = await kith.services.statuses.create(alice.account.id, { text: "answered before the fan-out", visibility: "public" });
    const authorRow = await kith.storage.db
      .selectFrom("home_feed")
      .select("account_id")
      .where("status_id", "=", id)
      .where("account_id", "=", alice.account.id)
      .executeTakeFirst();
    expect(authorRow?.account_id).toBe(alice.account.id);
    await kith.services.events.settled();
    expect(await home(bob)).toEqual([id]);
    expect(await home(alice)).toEqual([id]);
  });

  it("home needs a token", async () => {
    expect((await kith.request("GET", "/api/v1/timelines/home")).status).toBe(401);
  });

  it("pages home through Link headers", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const posts = [];
    for (let i = 0; i < 5; i++) posts.push(await post(kith, alice.account.id));
    const response = await kith.request("GET", "/api/v1/timelines/home?limit=2", { token: bob.token });
    expect(await idsOf(response)).toEqual([posts[4], posts[3]]);
    const next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
    expect(next).toContain(`max_id=${posts[3]}`);
    const second = await kith.request("GET", new URL(next ?? "").pathname + new URL(next ?? "").search, { token: bob.token });
    expect(await idsOf(second)).toEqual([posts[2], posts[1]]);
    expect(await home(bob, `?min_id=${posts[2]}&limit=1`)).toEqual([posts[3]]);
    expect(await home(bob, `?since_id=${posts[2]}&limit=1`)).toEqual([posts[4]]);
  });

  it("a home page leaves out an entry the reader may no longer see, and still pages by the entries read", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const older = await post(kith, alice.account.id);
    const visible = await post(kith, alice.account.id);
    // An entry whose post bob may not see (a direct post to someone else), as a feed can hold one after a change.
    const hidden = await post(kith, alice.account.id, { visibility: "direct", mentions: [carol.account.id] });
    await kith.storage.db
      .insertInto("home_feed")
      .values({
        account_id: bob.account.id,
        status_id: hidden,
        author_id: alice.account.id,
        reblog_of_id: null,
        created_at: new Date().toISOString(),
      })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .execute();
    const response = await kith.request("GET", "/api/v1/timelines/home?limit=2", { token: bob.token });
    expect(await idsOf(response)).toEqual([visible]);
    const link = response.headers.get("link") ?? "";
    expect(/<([^>]+)>; rel="next"/.exec(link)?.[1]).toContain(`max_id=${visible}`);
    expect(/<([^>]+)>; rel="prev"/.exec(link)?.[1]).toContain(`min_id=${hidden}`);
    expect(await home(bob, `?min_id=${older}&limit=2`)).toEqual([visible]);
    expect(await home(bob, `?max_id=${hidden}&limit=2`)).toEqual([visible, older]);
  });

  it("a home page carries the reader's marks of each post shown, a boost those of the post it boosts", async () => {
    const [alice, bob, carol, erin] = [await user(), await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    await follow(kith, bob.account.id, carol.account.id);
    const create = (author: TestUser, text: string) => kith.services.statuses.create(author.account.id, { text, visibility: "public" });
    const act = async (path: string) => expect((await kith.request("POST", path, { token: bob.token })).status, path).toBe(200);
    const liked = await create(alice, "favourited and bookmarked");
    const boostedByBob = await create(alice, "boosted by the reader");
    const muted = await create(alice, "in a muted conversation");
    const own = await create(bob, "pinned");
    const unmarked = await create(alice, "nothing done to it");
    const erinsPost = await create(erin, "boosted by someone the reader follows");
    await kith.services.events.settled();
    const boost = await post(kith, carol.account.id, { reblogOf: erinsPost });
    await act(`/api/v1/statuses/${liked}/favourite`);
    await act(`/api/v1/statuses/${liked}/bookmark`);
    await act(`/api/v1/statuses/${boostedByBob}/reblog`);
    await act(`/api/v1/statuses/${muted}/mute`);
    await act(`/api/v1/statuses/${own}/pin`);
    await act(`/api/v1/statuses/${erinsPost}/favourite`);
    await kith.services.events.settled();

    const response = await kith.request("GET", "/api/v1/timelines/home", { token: bob.token });
    expect(response.status).toBe(200);
    type Marked = { id: string; favourited: boolean; reblogged: boolean; muted: boolean; bookmarked: boolean; pinned: boolean };
    const page = (await response.json()) as (Marked & { reblog: Marked | null })[];
    const marksOf = (id: string) => {
      const status = page.find((entry) => entry.id === id);
      if (!status) throw new Error(`${id} is not on the page`);
      const { favourited, reblogged, muted, bookmarked, pinned } = status;
      return { favourited, reblogged, muted, bookmarked, pinned };
    };
    const none = { favourited: false, reblogged: false, muted: false, bookmarked: false, pinned: false };
    expect(marksOf(liked)).toEqual({ ...none, favourited: true, bookmarked: true });
    expect(marksOf(boostedByBob)).toEqual({ ...none, reblogged: true });
    expect(marksOf(muted)).toEqual({ ...none, muted: true });
    expect(marksOf(own)).toEqual({ ...none, pinned: true });
    expect(marksOf(unmarked)).toEqual(none);
    expect(marksOf(boost)).toEqual({ ...none, favourited: true });
    expect(page.find((entry) => entry.id === boost)?.reblog).toMatchObject({ id: erinsPost, favourited: true, reblogged: false });
  });

  it("a boost of a post the reader may not see is left out of home, and the page still pages by it", async () => {
    const [bob, carol, frank] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, carol.account.id);
    const before = await post(kith, carol.account.id);
    const franksPost = await post(kith, frank.account.id);
    const boost = await post(kith, carol.account.id, { reblogOf: franksPost });
    expect(await home(bob)).toEqual([boost, before]);
    // Frank blocks bob: the boost is carol's and stays in bob's feed, but the post it boosts is hidden from him.
    await kith.storage.db
      .insertInto("blocks")
      .values({
        id: kith.ids.next("block"),
        account_id: frank.account.id,
        target_account_id: bob.account.id,
        uri: null,
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    const response = await kith.request("GET", "/api/v1/timelines/home?limit=1", { token: bob.token });
    expect(await idsOf(response)).toEqual([]);
    expect(/<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1]).toContain(`max_id=${boost}`);
    expect(await home(bob)).toEqual([before]);
    // A reader who may see frank's post still gets the boost.
    expect(await home(carol)).toEqual([boost, before]);
  });

  it("followers-only posts reach followers; direct posts only the mentioned followers", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    await follow(kith, carol.account.id, alice.account.id);
    const privatePost = await post(kith, alice.account.id, { visibility: "private" });
    const direct = await post(kith, alice.account.id, { visibility: "direct", mentions: [bob.account.id] });
    expect(await home(bob)).toEqual([direct, privatePost]);
    expect(await home(carol)).toEqual([privatePost]);
    const publicIds = await idsOf(await kith.request("GET", "/api/v1/timelines/public"));
    expect(publicIds).not.toContain(privatePost);
    expect(publicIds).not.toContain(direct);
  });

  it("replies to someone the reader does not follow stay out of home", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    await follow(kith, dave.account.id, alice.account.id);
    await follow(kith, dave.account.id, carol.account.id);
    const root = await post(kith, carol.account.id);
    const reply = await post(kith, alice.account.id, { inReplyTo: { id: root, accountId: carol.account.id } });
    expect(await home(bob)).not.toContain(reply);
    expect(await home(dave)).toContain(reply);
  });

  it("boosts: one entry per boosted post, none from follows with reblogs off", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    await follow(kith, dave.account.id, bob.account.id);
    await follow(kith, dave.account.id, carol.account.id, { showReblogs: false });
    const original = await post(kith, alice.account.id);
    const boost = await post(kith, bob.account.id, { reblogOf: original });
    const second = await post(kith, carol.account.id, { reblogOf: original });
    const ids = await home(dave);
    expect(ids).toContain(boost);
    expect(ids).not.toContain(second);
    const eve = await user();
    await follow(kith, eve.account.id, bob.account.id);
    await follow(kith, eve.account.id, carol.account.id);
    await follow(kith, eve.account.id, alice.account.id);
    const another = await post(kith, alice.account.id);
    const redundant = await post(kith, bob.account.id, { reblogOf: another });
    const eveHome = await home(eve);
    expect(eveHome).toContain(another);
    expect(eveHome).not.toContain(redundant);
  });

  it("unfollow, block and mute take the author's posts out of home; muted authors' new posts stay out", async () => {
    const [alice, bob, carol, dave] = [await user(), await user(), await user(), await user()];
    for (const reader of [bob, carol, dave]) await follow(kith, reader.account.id, alice.account.id);
    const first = await post(kith, alice.account.id);
    await unfollow(kith, bob.account.id, alice.account.id);
    await block(kith, carol.account.id, alice.account.id);
    await mute(kith, dave.account.id, alice.account.id);
    expect(await home(bob)).toEqual([]);
    expect(await home(carol)).toEqual([]);
    expect(await home(dave)).toEqual([]);
    await post(kith, alice.account.id);
    expect(await home(dave)).toEqual([]);
    expect(first).toBeTruthy();
  });

  it("a new follow brings the followed account's recent posts into home", async () => {
    const [alice, bob] = [await user(), await user()];
    const earlier = await post(kith, alice.account.id);
    const hidden = await post(kith, alice.account.id, { visibility: "direct" });
    await follow(kith, bob.account.id, alice.account.id);
    const ids = await home(bob);
    expect(ids).toContain(earlier);
    expect(ids).not.toContain(hidden);
  });

  it("a deleted post leaves home and is announced on the deletes stream", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe("stream:deletes", (message) => seen.push(message));
    const gone = await post(kith, alice.account.id);
    await kith.storage.db.deleteFrom("statuses").where("id", "=", gone).execute();
    await kith.services.events.emit({
      type: "status.deleted",
      statusId: gone,
      accountId: alice.account.id,
      reblogOfId: null,
      visibility: "public",
    });
    await stop();
    expect(await home(bob)).toEqual([]);
    expect(seen).toContainEqual({ event: "delete", statusId: gone });
  });

  it("new home entries are published on the reader's user stream", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:user:${bob.account.id}`, (message) => seen.push(message));
    const id = await post(kith, alice.account.id);
    await stop();
    expect(seen).toContainEqual({ event: "update", statusId: id });
  });

  it("an edit is announced on the streams of readers who have the post", async () => {
    const [alice, bob] = [await user(), await user()];
    await follow(kith, bob.account.id, alice.account.id);
    const id = await post(kith, alice.account.id);
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:user:${bob.account.id}`, (message) => seen.push(message));
    await kith.services.events.emit({ type: "status.updated", statusId: id, accountId: alice.account.id });
    await stop();
    expect(seen).toContainEqual({ event: "status.update", statusId: id });
  });

  it("large audiences are written by a queued job in batches", async () => {
    const alice = await user();
    const readers: string[] = [];
    for (let i = 0; i < 205; i++) {
      const id = await remoteAccount(kith, `r${serial}x${i}`, "example.org");
      // Local followers only get feeds: make these local by clearing their domain.
      await kith.storage.db
        .updateTable("accounts")
        .set({ domain: null, acct_key: `bulk${serial}x${i}` })
        .where("id", "=", id)
        .execute();
      readers.push(id);
      await follow(kith, id, alice.account.id);
    }
    const id = await post(kith, alice.account.id);
    const before = await kith.storage.db.selectFrom("home_feed").select("account_id").where("status_id", "=", id).execute();
    expect(before.map((r) => r.account_id)).toEqual([alice.account.id]);
    const jobs = await kith.queue.list({ queue: "timelines.fan_out", limit: 5 });
    expect(jobs).toHaveLength(1);
    await kith.start();
    const { eventually } = await import("@kith/core/testing");
    await eventually(
      async () => {
        const rows = await kith.storage.db.selectFrom("home_feed").select("account_id").where("status_id", "=", id).execute();
        expect(rows).toHaveLength(206);
      },
      { timeoutMs: 10_000 },
    );
  });
});

describeOnEngines("public and hashtag timelines", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let remote: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("pubalice");
    bob = await kith.createUser("pubbob");
    remote = await remoteAccount(kith, "faraway", "remote.example");
    ids.local = await post(kith, alice.account.id, { tags: ["cats", "dogs"] });
    ids.unlisted = await post(kith, alice.account.id, { visibility: "unlisted", tags: ["cats"] });
    ids.remote = await post(kith, remote, { local: false, tags: ["cats", "birds"] });
    ids.reply = await post(kith, bob.account.id, { inReplyTo: { id: ids.local, accountId: alice.account.id }, tags: ["dogs"] });
  });
  afterAll(() => kith.close());

  const get = async (path: string, token?: string): Promise<string[]> => {
    const response = await kith.request("GET", path, token ? { token } : {});
    expect(response.status).toBe(200);
    return idsOf(response);
  };

  it("guests read public posts, local and remote, without replies to others", async () => {
    expect(await get("/api/v1/timelines/public")).toEqual([ids.remote, ids.local]);
    expect(await get("/api/v1/timelines/public?local=true")).toEqual([ids.local]);
    expect(await get("/api/v1/timelines/public?remote=true")).toEqual([ids.remote]);
    expect(await get("/api/v1/timelines/public?only_media=true")).toEqual([]);
  });

  it("leaves out accounts the viewer blocks or whose domain they block", async () => {
    const carol = await kith.createUser("pubcarol");
    await block(kith, carol.account.id, alice.account.id);
    await kith.storage.db
      .insertInto("account_domain_blocks")
      .values({
        id: kith.ids.next("userDomainBlock"),
        account_id: carol.account.id,
        domain: "remote.example",
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    expect(await get("/api/v1/timelines/public", carol.token)).toEqual([]);
    expect(await get("/api/v1/timelines/public", bob.token)).toEqual([ids.remote, ids.local]);
  });

  it("hashtag timelines take any[], all[] and none[]", async () => {
    expect(await get("/api/v1/timelines/tag/Cats")).toEqual([ids.remote, ids.local]);
    expect(await get("/api/v1/timelines/tag/cats?all[]=dogs")).toEqual([ids.local]);
    expect(await get("/api/v1/timelines/tag/cats?none[]=birds")).toEqual([ids.local]);
    expect(await get("/api/v1/timelines/tag/birds?any[]=dogs")).toEqual([ids.reply, ids.remote, ids.local]);
    expect(await get("/api/v1/timelines/tag/cats?local=true")).toEqual([ids.local]);
    expect(await get("/api/v1/timelines/tag/nothing")).toEqual([]);
  });

  it("pages public and hashtag timelines through Link headers, prev going back up", async () => {
    for (const path of ["/api/v1/timelines/public?limit=1", "/api/v1/timelines/tag/cats?limit=1"]) {
      const first = await kith.request("GET", path);
      expect(await idsOf(first)).toEqual([ids.remote]);
      const link = first.headers.get("link") ?? "";
      const next = new URL(/<([^>]+)>; rel="next"/.exec(link)?.[1] ?? "");
      expect(next.searchParams.get("max_id")).toBe(ids.remote);
      const second = await kith.request("GET", next.pathname + next.search);
      expect(await idsOf(second)).toEqual([ids.local]);
      const prev = new URL(/<([^>]+)>; rel="prev"/.exec(second.headers.get("link") ?? "")?.[1] ?? "");
      expect(await idsOf(await kith.request("GET", prev.pathname + prev.search))).toEqual([ids.remote]);
    }
  });

  it("refuses malformed parameters", async () => {
    expect((await kith.request("GET", "/api/v1/timelines/public?local=maybe")).status).toBeGreaterThanOrEqual(400);
    expect((await kith.request("GET", "/api/v1/timelines/public?local=maybe")).status).toBeLessThan(500);
  });
});
