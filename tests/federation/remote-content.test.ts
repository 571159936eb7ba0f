import { type RemoteServer, type TestKith, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Remote content handled in one process, against a scripted remote server
 * on loopback: fetches made while handling inbox activities are signed (the
 * remote server refuses unsigned GETs, as servers in secure mode do); the
 * tombstone of a deleted remote post expires after its retention and is
 * pruned by a repeating job; a stale remote account is fetched again in the
 * background when viewed or when it sends an activity; the replies of a
 * remote post are fetched on the queue when its thread is opened.
 */
describeOnEngines("remote content", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: TestUser;
  let notes = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.requireSignedFetch = false;
    remote.fetched.length = 0;
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    alice = await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  /** A public Note by mallory, served by the remote server; its URL. */
  function servedNote(extra: Record<string, unknown> = {}): string {
    const path = `/users/mallory/statuses/${++notes}`;
    const id = `${remote.origin}${path}`;
    remote.serve(path, {
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Note",
      id,
      attributedTo: mallory().id.href,
      content: `<p>note ${notes}</p>`,
      to: [PUBLIC],
      published: new Date().toISOString(),
      ...extra,
    });
    return id;
  }

  let activities = 0;
  function activityOf(type: string, object: unknown): Record<string, unknown> {
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/activities/${++activities}`,
      type,
      actor: mallory().id.href,
      to: [PUBLIC],
      object,
    };
  }

  const createOf = (object: unknown) => activityOf("Create", object);

  /** Waits until the federation queue has nothing left to work. */
  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await kith.queue.counts("federation");
      expect(counts.submitted + counts.active).toBe(0);
    });
  }

  async function statusAt(uri: string) {
    return kith.storage.db.selectFrom("statuses").selectAll().where("uri", "=", uri).executeTakeFirst();
  }

  async function deliver(inbox: string, activity: Record<string, unknown>): Promise<Response> {
    const response = await kith.fetch(await remote.signedPost(inbox, activity, mallory()), { clientIp: "127.0.0.1" });
    expect(response.status).toBeLessThan(500);
    return response;
  }

  for (const inbox of ["https://kith.test/inbox", "https://kith.test/users/alice/inbox"]) {
    it(`signs the fetches of an unknown sender's key and of an object given by URL (${new URL(inbox).pathname})`, async () => {
      remote.requireSignedFetch = true;
      const note = servedNote();
      expect((await deliver(inbox, createOf(note))).status).toBe(202);
      const stored = await eventually(async () => {
        const row = await statusAt(note);
        expect(row).toBeDefined();
        return row;
      });
      expect(stored?.content).toContain("note");
      const paths = remote.fetched.map((request) => request.path);
      expect(paths).toContain("/users/mallory");
      expect(paths).toContain(new URL(note).pathname);
      for (const request of remote.fetched) expect(String(request.headers.signature)).toMatch(/keyId="https:\/\/kith\.test\/users\//);
    });
  }

  it("forgets a deleted remote post's tombstone after the retention (30 days), pruned by a repeating job", async () => {
    const id = `${remote.origin}/users/mallory/statuses/deleted-${++notes}`;
    const note = { type: "Note", id, attributedTo: mallory().id.href, content: "<p>late</p>", to: [PUBLIC] };
    const tombstones = () =>
      kith.storage.db.selectFrom("federation_kv").select(["key", "expires_at"]).where("key", "like", '%"tombstone"%').execute();

    expect((await deliver("https://kith.test/inbox", activityOf("Delete", { type: "Tombstone", id }))).status).toBe(202);
    await eventually(async () => expect(await tombstones()).toHaveLength(1));

    // Within the retention, a Create arriving after its Delete is dropped.
    kith.clock.advance(29 * DAY_MS);
    expect((await deliver("https://kith.test/inbox", createOf(note))).status).toBe(202);
    await settle();
    expect(await statusAt(id)).toBeUndefined();
    expect(await tombstones()).toHaveLength(1);

    // Past it, the pruning job removes the tombstone, and the post is taken like any other.
    kith.clock.advance(2 * DAY_MS);
    await eventually(async () => expect(await tombstones()).toEqual([]));
    expect((await deliver("https://kith.test/inbox", createOf(note))).status).toBe(202);
    await eventually(async () => expect(await statusAt(id)).toBeDefined());
  });

  it("fetches a stale remote account again on the queue when it is viewed or sends an activity, never inline", async () => {
    const inbox = "https://kith.test/users/alice/inbox";
    expect((await deliver(inbox, activityOf("Follow", "https://kith.test/users/alice"))).status).toBe(202);
    const account = await eventually(async () => {
      const row = await kith.storage.db.selectFrom("accounts").selectAll().where("uri", "=", mallory().id.href).executeTakeFirst();
      expect(row).toBeDefined();
      return row ?? expect.unreachable();
    });
    const document = (await (await fetch(mallory().id)).json()) as Record<string, unknown>;
    const rename = (name: string) => remote.serve(mallory().id.pathname, { ...document, name });
    const displayName = async () =>
      (await kith.storage.db.selectFrom("accounts").select("display_name").where("id", "=", account.id).executeTakeFirstOrThrow())
        .display_name;
    const actorFetches = () => remote.fetched.filter((request) => request.path === mallory().id.pathname).length;
    const view = async () => {
      const response = await kith.request("GET", `/api/v1/accounts/${account.id}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as { display_name: string }).display_name;
    };

    // Fresh: viewing it fetches nothing.
    rename("Mallory One");
    const before = actorFetches();
    expect(await view()).toBe("");
    await settle();
    expect(actorFetches()).toBe(before);

    // Stale: the view answers with the copy it has, and the queue fetches the account once, however often it is viewed.
    kith.clock.advance(2 * DAY_MS);
    const views = await Promise.all([view(), view(), view()]);
    expect(views).toEqual(["", "", ""]);
    await eventually(async () => expect(await displayName()).toBe("Mallory One"));
    await eventually(async () => {
      const counts = await kith.queue.counts("remote-account-refresh");
      expect(counts.submitted + counts.active).toBe(0);
    });
    expect(actorFetches()).toBe(before + 1);

    // Stale again: any activity from it (a Like of nothing known, here) has it fetched again.
    rename("Mallory Two");
    kith.clock.advance(2 * DAY_MS);
    expect((await deliver(inbox, activityOf("Like", "https://kith.test/users/alice/statuses/unknown"))).status).toBe(202);
    await eventually(async () => expect(await displayName()).toBe("Mallory Two"));
  });

  it("fetches the replies of a remote post (paged, and replies to replies) on the queue once its thread is opened", async () => {
    remote.requireSignedFetch = true;
    const base = `/users/mallory/statuses/thread-${++notes}`;
    const at = (path: string) => `${remote.origin}${path}`;
    const note = (path: string, inReplyTo: string | null, replies: string[][] = []) => {
      const id = at(path);
      const pages = replies.map((items, index) => ({
        type: "CollectionPage",
        id: at(`${path}/replies/${index + 1}`),
        partOf: at(`${path}/replies`),
        items,
        ...(index + 1 < replies.length && { next: at(`${path}/replies/${index + 2}`) }),
      }));
      for (const page of pages.slice(1)) remote.serve(new URL(page.id).pathname, { "@context": "https://www.w3.org/ns/activitystreams", ...page });
      remote.serve(path, {
        "@context": "https://www.w3.org/ns/activitystreams",
        type: "Note",
        id,
        attributedTo: mallory().id.href,
        content: `<p>${path.split("/").at(-1)}</p>`,
        to: [PUBLIC],
        inReplyTo,
        published: new Date().toISOString(),
        ...(pages[0] && { replies: { type: "Collection", id: at(`${path}/replies`), first: { ...pages[0], next: pages[0].next } } }),
      });
      return id;
    };
    // The post has two replies over two pages; the first reply has one of its own; an item of a post that answers
    // something else is not taken as a reply.
    const stray = note(`${base}-stray`, null);
    const grandchild = note(`${base}-grandchild`, at(`${base}-first`));
    const first = note(`${base}-first`, at(base), [[grandchild]]);
    const second = note(`${base}-second`, at(base));
    const root = note(base, null, [[first, stray], [second]]);

    // Delivered, not resolved: opening its thread is what has the replies fetched.
    expect((await deliver("https://kith.test/inbox", createOf(root))).status).toBe(202);
    const rootId = (await eventually(async () => (await statusAt(root)) ?? expect.unreachable("not stored yet")))?.id;

    const context = async () => {
      const response = await kith.request("GET", `/api/v1/statuses/${rootId}/context`, { token: alice.token });
      expect(response.status).toBe(200);
      return ((await response.json()) as { descendants: { uri: string }[] }).descendants.map((status) => status.uri);
    };
    await context();
    await eventually(async () => expect((await context()).sort()).toEqual([first, second, grandchild].sort()), { timeoutMs: 15_000 });
    expect(await statusAt(stray)).toBeUndefined();
    for (const request of remote.fetched) expect(String(request.headers.signature)).toMatch(/keyId="https:\/\/kith\.test\/users\//);

    // A post resolved by its URL has its replies fetched too, thread opened or not.
    const answer = note(`${base}-answer`, at(`${base}-resolved`));
    const resolved = note(`${base}-resolved`, null, [[answer]]);
    const search = await kith.request("GET", `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(resolved)}`, {
      token: alice.token,
    });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { statuses: { uri: string }[] }).statuses.map((status) => status.uri)).toEqual([resolved]);
    await eventually(async () => expect(await statusAt(answer)).toBeDefined(), { timeoutMs: 15_000 });
  });
});
