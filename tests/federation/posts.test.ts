/**
 * Posts between two Kith server processes over HTTPS, driven by their
 * Mastodon APIs: public and followers-only posts reach the follower's home
 * timeline on the other server; a reply threads to the post; like and boost
 * (and their undo) count and notify; an edit and a delete follow;
 * a vote on a remote poll is counted by the poll's server; a pin lands in
 * the featured collection; a post URL resolves through search. Then raw
 * activities signed by a real remote actor: the same Create twice, a Delete
 * before its Create, and a Create of another origin's object, each without
 * more than its one effect. A mention typed in a direct post (the handle's
 * host carries a port) notifies the account on the other server, and the
 * post's delete reaches it too.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type Federation, type JsonResponse, type TestInstance, startFederation } from "../support/federation-harness.js";

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface Status {
  id: string;
  uri: string;
  url: string | null;
  content: string;
  visibility: string;
  in_reply_to_id: string | null;
  favourites_count: number;
  reblogs_count: number;
  replies_count: number;
  edited_at: string | null;
  reblog: Status | null;
  poll: { id: string; votes_count: number; options: { title: string; votes_count: number | null }[] } | null;
  tags: { name: string }[];
  mentions: { acct: string }[];
  account: { acct: string };
}

class Client {
  constructor(
    readonly instance: TestInstance,
    readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    const send = () =>
      this.instance.request(method, path, {
        headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined && { "content-type": "application/json" }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    // A server that sheds load answers 503 and asks to be tried again shortly, as a client would: on a busy test
    // machine (both engines' server processes running side by side) a read can meet it.
    for (let attempt = 1; ; attempt++) {
      const response = await send();
      if (response.status !== 503 || method !== "GET" || attempt === 5) return response;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }

  async ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.call(method, path, body);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as T;
  }

  home(): Promise<Status[]> {
    return this.ok<Status[]>("GET", "/api/v1/timelines/home?limit=40");
  }

  async notifications(type: string): Promise<{ type: string; status?: Status; account: { acct: string } }[]> {
    return this.ok("GET", `/api/v1/notifications?types[]=${type}`);
  }
}

async function tokenFor(instance: TestInstance, username: string): Promise<string> {
  return (await instance.runScript("federation-token.ts", [username])).trim();
}

describeOnEngines("posts between two server processes", (engine) => {
  let net: Federation;
  let a: TestInstance;
  let b: TestInstance;
  let alice: Client;
  let bob: Client;

  /** Bob's copy of one of Alice's posts, found by its URI in his home timeline. */
  async function onBobsSide(uri: string): Promise<Status | undefined> {
    const home = await eventually(
      () => bob.home(),
      (statuses) => statuses.some((status) => status.uri === uri),
    );
    return home.find((status) => status.uri === uri);
  }

  beforeAll(async () => {
    net = await startFederation(2, process.env.KITH_TEST_DUMP ? { KITH_LOG_LEVEL: "debug" } : {}, engine.name);
    [a, b] = net.instances as [TestInstance, TestInstance];
    await Promise.all([a.createAccount("alice"), b.createAccount("bob")]);
    alice = new Client(a, await tokenFor(a, "alice"));
    bob = new Client(b, await tokenFor(b, "bob"));
    await b.runScript("federation-follow.ts", ["bob", `@alice@${a.host}`]);
    await a.runScript("federation-follow.ts", ["alice", `@bob@${b.host}`]);
  }, 180_000);
  afterAll(async () => {
    if (process.env.KITH_TEST_DUMP)
      for (const instance of net?.instances ?? []) writeFileSync(`${process.env.KITH_TEST_DUMP}-${instance.name}.log`, instance.output());
    await net?.stop();
  });

  it("posts, replies, likes, boosts, edits and deletes across servers", async () => {
    const post = await alice.ok<Status>("POST", "/api/v1/statuses", { status: "Hello from A #kith", visibility: "public" });
    const privatePost = await alice.ok<Status>("POST", "/api/v1/statuses", { status: "Only followers", visibility: "private" });
    const seen = await onBobsSide(post.uri);
    expect(seen?.content).toContain("Hello from A");
    expect(seen?.tags.map((tag) => tag.name)).toEqual(["kith"]);
    expect(seen?.account.acct).toBe(`alice@${a.host}`);
    const seenPrivate = await onBobsSide(privatePost.uri);
    expect(seenPrivate?.visibility).toBe("private");
    if (!seen) return;

    // A reply (Alice follows Bob): threaded to her post on A, in her home timeline. Mentions are in the last test.
    const reply = await bob.ok<Status>("POST", "/api/v1/statuses", { status: "nice", in_reply_to_id: seen.id });
    const aliceHome = await eventually(
      () => alice.home(),
      (statuses) => statuses.some((status) => status.uri === reply.uri),
    );
    expect(aliceHome.find((status) => status.uri === reply.uri)?.in_reply_to_id).toBe(post.id);

    // Like and boost by Bob: counted on Alice's post, each notified once.
    await bob.ok("POST", `/api/v1/statuses/${seen.id}/favourite`);
    await bob.ok("POST", `/api/v1/statuses/${seen.id}/reblog`);
    const counted = await eventually(
      () => alice.ok<Status>("GET", `/api/v1/statuses/${post.id}`),
      (status) => status.favourites_count === 1 && status.reblogs_count === 1 && status.replies_count === 1,
    );
    expect([counted.favourites_count, counted.reblogs_count, counted.replies_count]).toEqual([1, 1, 1]);
    expect((await alice.notifications("favourite")).map((n) => n.account.acct)).toEqual([`bob@${b.host}`]);
    expect((await alice.notifications("reblog")).map((n) => n.account.acct)).toEqual([`bob@${b.host}`]);

    // Unlike and unboost.
    await bob.ok("POST", `/api/v1/statuses/${seen.id}/unfavourite`);
    await bob.ok("POST", `/api/v1/statuses/${seen.id}/unreblog`);
    const undone = await eventually(
      () => alice.ok<Status>("GET", `/api/v1/statuses/${post.id}`),
      (status) => status.favourites_count === 0 && status.reblogs_count === 0,
    );
    expect([undone.favourites_count, undone.reblogs_count]).toEqual([0, 0]);

    // An edit reaches Bob's copy, with its history.
    await alice.ok("PUT", `/api/v1/statuses/${post.id}`, { status: "Hello again from A #kith" });
    const edited = await eventually(
      () => bob.ok<Status>("GET", `/api/v1/statuses/${seen.id}`),
      (status) => status.content.includes("again"),
    );
    expect(edited.edited_at).not.toBeNull();
    const history = await bob.ok<unknown[]>("GET", `/api/v1/statuses/${seen.id}/history`);
    expect(history.length).toBe(2);

    // A delete takes Bob's copy away, of the followers-only post too.
    await alice.ok("DELETE", `/api/v1/statuses/${post.id}`);
    await alice.ok("DELETE", `/api/v1/statuses/${privatePost.id}`);
    const gone = await eventually(
      () => bob.call("GET", `/api/v1/statuses/${seen.id}`),
      (response) => response.status === 404,
    );
    expect(gone.status).toBe(404);
    const privateGone = await eventually(
      () => bob.call("GET", `/api/v1/statuses/${seenPrivate?.id}`),
      (response) => response.status === 404,
    );
    expect(privateGone.status).toBe(404);
  }, 120_000);

  it("delivers a mention typed in a direct post to the account on the other server, and its delete", async () => {
    const direct = await bob.ok<Status>("POST", "/api/v1/statuses", {
      status: `@alice@${a.host}: just between us`,
      visibility: "direct",
    });
    const mentions = await eventually(
      () => alice.notifications("mention"),
      (list) => list.some((n) => n.status?.uri === direct.uri),
    );
    const notified = mentions.filter((n) => n.status?.uri === direct.uri);
    expect(notified.map((n) => [n.account.acct, n.status?.visibility])).toEqual([[`bob@${b.host}`, "direct"]]);
    expect(notified[0]?.status?.content).toContain("just between us");
    const copy = notified[0]?.status?.id;
    expect((await alice.call("GET", `/api/v1/statuses/${copy}`)).status).toBe(200);

    await bob.ok("DELETE", `/api/v1/statuses/${direct.id}`);
    const gone = await eventually(
      () => alice.call("GET", `/api/v1/statuses/${copy}`),
      (response) => response.status === 404,
    );
    expect(gone.status).toBe(404);
  }, 120_000);

  it("looks up a mentioned account its server has never seen, and the mention reaches it", async () => {
    await a.createAccount("dave");
    const dave = new Client(a, await tokenFor(a, "dave"));
    const post = await bob.ok<Status>("POST", "/api/v1/statuses", { status: `hello @dave@${a.host}, welcome`, visibility: "public" });
    expect(post.mentions.map((mention) => mention.acct)).toEqual([`dave@${a.host}`]);
    const mentions = await eventually(
      () => dave.notifications("mention"),
      (list) => list.some((n) => n.status?.uri === post.uri),
    );
    expect(mentions.filter((n) => n.status?.uri === post.uri).map((n) => n.account.acct)).toEqual([`bob@${b.host}`]);
  }, 120_000);

  it("votes on a remote poll and sees its results move, pins, and resolves a post by URL", async () => {
    await a.createAccount("carol");
    const carol = new Client(a, await tokenFor(a, "carol"));
    const question = await alice.ok<Status>("POST", "/api/v1/statuses", {
      status: "Tea or coffee?",
      poll: { options: ["tea", "coffee"], expires_in: 3600 },
    });
    const seen = await onBobsSide(question.uri);
    expect(seen?.poll?.options.map((option) => option.title)).toEqual(["tea", "coffee"]);
    if (!seen?.poll) return;
    await bob.ok("POST", `/api/v1/polls/${seen.poll.id}/votes`, { choices: [1] });
    const counted = await eventually(
      () => alice.ok<Status>("GET", `/api/v1/statuses/${question.id}`),
      (status) => status.poll?.votes_count === 1,
    );
    expect(counted.poll?.options.map((option) => option.votes_count)).toEqual([0, 1]);
    // Carol votes on A: the poll's server sends its results, and Bob's copy counts her vote too.
    await carol.ok("POST", `/api/v1/polls/${question.poll?.id}/votes`, { choices: [0] });
    const results = await eventually(
      () => bob.ok<Status>("GET", `/api/v1/statuses/${seen.id}`),
      (status) => status.poll?.votes_count === 2,
      60_000,
    );
    expect(results.poll?.options.map((option) => option.votes_count)).toEqual([1, 1]);

    await alice.ok("POST", `/api/v1/statuses/${question.id}/pin`);
    const storage = b.openStorage();
    try {
      const pins = await eventually(
        () => storage.db.selectFrom("status_pins").select("status_id").execute(),
        (rows) => rows.length > 0,
      );
      expect(pins).toEqual([{ status_id: seen.id }]);
      await alice.ok("POST", `/api/v1/statuses/${question.id}/unpin`);
      const unpinned = await eventually(
        () => storage.db.selectFrom("status_pins").select("status_id").execute(),
        (rows) => rows.length === 0,
      );
      expect(unpinned).toEqual([]);
    } finally {
      await storage.close();
    }

    // A post Bob's server has not seen (Bob follows Alice, not Carol): found by its URL.
    const unseen = await carol.ok<Status>("POST", "/api/v1/statuses", { status: "Hidden gem", visibility: "public" });
    const found = await bob.ok<{ statuses: Status[] }>(
      "GET",
      `/api/v2/search?q=${encodeURIComponent(unseen.uri)}&resolve=true&type=statuses`,
    );
    expect(found.statuses.map((status) => status.uri)).toEqual([unseen.uri]);
    expect(found.statuses[0]?.account.acct).toBe(`carol@${a.host}`);
  }, 120_000);

  it("gives a repeated Create one effect, drops a Create after its Delete and a Create of another origin's object", async () => {
    const bobActor = `${b.origin}/users/bob`;
    const aliceActor = `${a.origin}/users/alice`;
    const note = (id: string, content: string, attributedTo = bobActor, tag: unknown[] = []) => ({
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Create",
      id: `${id}/activity`,
      actor: bobActor,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: {
        type: "Note",
        id,
        attributedTo,
        content,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        tag,
      },
    });
    const twice = `${b.origin}/users/bob/statuses/raw-1`;
    const late = `${b.origin}/users/bob/statuses/raw-2`;
    const forged = `${a.origin}/users/alice/statuses/forged-1`;
    const del = {
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Delete",
      id: `${late}#delete`,
      actor: bobActor,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: { type: "Tombstone", id: late },
    };
    const personalInbox = `${a.origin}/users/alice/inbox`;
    await b.runScript("federation-send.ts", ["bob", aliceActor, `${a.origin}/inbox`, JSON.stringify(note(twice, "<p>once</p>"))]);
    await b.runScript("federation-send.ts", ["bob", aliceActor, personalInbox, JSON.stringify(note(twice, "<p>once</p>"))]);
    await b.runScript("federation-send.ts", [
      "bob",
      aliceActor,
      `${a.origin}/inbox`,
      JSON.stringify(del),
      JSON.stringify(note(late, "<p>late</p>")),
    ]);
    await b.runScript("federation-send.ts", [
      "bob",
      aliceActor,
      `${a.origin}/inbox`,
      JSON.stringify({
        ...note(forged, "<p>forged</p><script>alert(1)</script>", `${a.origin}/users/alice`),
        id: `${b.origin}/users/bob/statuses/forged-1/activity`,
      }),
    ]);
    // A last, ordinary post: once it is stored, the ones before it have been handled.
    const marker = `${b.origin}/users/bob/statuses/raw-3`;
    await b.runScript("federation-send.ts", [
      "bob",
      aliceActor,
      `${a.origin}/inbox`,
      JSON.stringify(note(marker, "<p>marker <script>x()</script></p>")),
    ]);
    const storage = a.openStorage();
    try {
      const rows = await eventually(
        () => storage.db.selectFrom("statuses").select(["uri", "content"]).where("uri", "in", [twice, late, forged, marker]).execute(),
        (list) => list.some((row) => row.uri === marker),
      );
      expect(rows.map((row) => row.uri).sort()).toEqual([twice, marker].sort());
      expect(rows.find((row) => row.uri === marker)?.content).toBe("<p>marker </p>");
      const aliceStatuses = await storage.db
        .selectFrom("statuses")
        .innerJoin("accounts", "accounts.id", "statuses.account_id")
        .select("statuses.content")
        .where("accounts.username", "=", "alice")
        .where("statuses.content", "like", "%forged%")
        .execute();
      expect(aliceStatuses).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 120_000);
});
