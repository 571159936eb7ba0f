/**
 * Home pages, and posts read by id, asked at the same moment are read by one
 * statement where a statement is a round trip to a database server
 * (joined-reads.ts), each row read as its own reader sees it: what the reader
 * may see (a follower's private post, a direct post), the reader's marks, and
 * a page's bounds. Every joined answer must equal the answer of the same read
 * alone, on both engines; readers' answers are made to differ, so an answer
 * read for the wrong reader shows.
 */
import type { PageRequest } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadHomeFeedPage } from "../../packages/core/src/modules/timelines/home-feed-store.js";
import { type VisiblePage, type VisibleStatus, loadVisiblePosts } from "../../packages/core/src/modules/statuses/visible-statuses-store.js";
import { describeOnEngines } from "../support/engines.js";
import { StatementCounter } from "../support/statement-counter.js";

describeOnEngines("home pages and posts read together", (engine) => {
  let kith: TestKith;
  /** Readers by name: their account ids. */
  const readers: Record<string, string> = {};
  /** Posts by name: their ids. */
  const posts: Record<string, string> = {};

  async function call(method: string, path: string, token: string, json?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await kith.request(method, path, { token, ...(json && { json }) });
    expect(response.status, `${method} ${path}`).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    const users = Object.fromEntries(
      await Promise.all(
        ["alice", "erin", "nobody", "bob", "carol", "dave"].map(async (name) => [name, await kith.createUser(name)] as const),
      ),
    );
    for (const name of ["alice", "erin", "nobody"]) readers[name] = users[name]?.account.id ?? "";
    const token = (name: string) => users[name]?.token ?? "";
    const idOf = (name: string) => users[name]?.account.id ?? "";
    // alice follows bob and carol; erin follows bob; nobody follows no one.
    for (const [follower, target] of [
      ["alice", "bob"],
      ["alice", "carol"],
      ["erin", "bob"],
    ] as const) {
      await call("POST", `/api/v1/accounts/${idOf(target)}/follow`, token(follower));
    }
    const write = async (name: string, author: string, json: Record<string, unknown>) => {
      posts[name] = String((await call("POST", "/api/v1/statuses", token(author), json)).id);
      await kith.services.events.settled();
    };
    await write("bobPublic", "bob", { status: "Public from bob" });
    await write("bobPrivate", "bob", { status: "For bob's followers", visibility: "private" });
    await write("carolPublic", "carol", { status: "Public from carol" });
    await write("aliceOwn", "alice", { status: "alice's own" });
    for (let i = 0; i < 4; i++) await write(`bobMore${i}`, "bob", { status: `More from bob ${i}` });
    // dave, whom no reader follows, is boosted into alice's and erin's feeds.
    await write("davePublic", "dave", { status: "Public from dave" });
    const boost = await call("POST", `/api/v1/statuses/${posts.davePublic}/reblog`, token("bob"));
    posts.bobBoost = String(boost.id);
    await kith.services.events.settled();
    // alice's marks, which erin does not have.
    await call("POST", `/api/v1/statuses/${posts.bobPublic}/favourite`, token("alice"));
    await call("POST", `/api/v1/statuses/${posts.bobMore0}/bookmark`, token("alice"));
    await call("POST", `/api/v1/statuses/${posts.aliceOwn}/pin`, token("alice"));
    await call("POST", `/api/v1/statuses/${posts.bobMore1}/mute`, token("alice"));
    await call("POST", `/api/v1/statuses/${posts.bobMore2}/favourite`, token("erin"));
    // A post for alice alone, with a row in erin's feed too: the rules, read for each reader, keep it from erin.
    await write("bobDirect", "bob", { status: "@alice for you", visibility: "direct" });
    await kith.storage.db
      .insertInto("home_feed")
      .values({
        account_id: readers.erin ?? "",
        status_id: posts.bobDirect ?? "",
        author_id: idOf("bob"),
        reblog_of_id: null,
        created_at: new Date().toISOString(),
      })
      .execute();
  });
  afterAll(() => kith.close());

  /** The pages asked: each reader, each kind of bounds, and another limit. */
  function asked(): { readonly reader: string; readonly page: PageRequest }[] {
    const middle = posts.bobMore1 ?? "";
    const pages: PageRequest[] = [
      { limit: 40 },
      { limit: 3 },
      { limit: 40, maxId: middle },
      { limit: 40, sinceId: middle },
      { limit: 2, minId: middle },
    ];
    return Object.values(readers).flatMap((reader) => pages.map((page) => ({ reader, page })));
  }

  it("answers each page as it is answered alone, with one statement per kind of page on a database server", async () => {
    const cases = asked();
    const alone: VisiblePage[] = [];
    for (const { reader, page } of cases) alone.push(await loadHomeFeedPage(kith.storage.db, reader, page));

    // The readers' pages differ: what each may see, and each one's marks.
    const [alicePage, erinPage, nobodyPage] = [alone[0], alone[5], alone[10]];
    expect(nobodyPage?.ids).toEqual([]);
    expect(alicePage?.posts.map((p) => p.post.id)).toContain(posts.bobPrivate);
    expect(alicePage?.posts.find((p) => p.post.id === posts.bobPublic)?.marks).toMatchObject({ favourited: true });
    expect(alicePage?.posts.find((p) => p.post.id === posts.bobMore0)?.marks).toMatchObject({ bookmarked: true });
    expect(alicePage?.posts.find((p) => p.post.id === posts.aliceOwn)?.marks).toMatchObject({ pinned: true });
    expect(alicePage?.posts.find((p) => p.post.id === posts.bobMore1)?.marks).toMatchObject({ muted: true });
    expect(alicePage?.posts.find((p) => p.post.id === posts.bobBoost)?.boosted?.post.id).toBe(posts.davePublic);
    expect(erinPage?.posts.find((p) => p.post.id === posts.bobPublic)?.marks).toMatchObject({ favourited: false });
    expect(erinPage?.posts.find((p) => p.post.id === posts.bobMore2)?.marks).toMatchObject({ favourited: true });
    expect(alicePage?.posts.map((p) => p.post.id)).toContain(posts.bobDirect);
    expect(erinPage?.ids).toContain(posts.bobDirect);
    expect(erinPage?.posts.map((p) => p.post.id)).not.toContain(posts.bobDirect);
    expect(alone.slice(0, 5).map((page) => page.ids.length)).toEqual([10, 3, 5, 4, 2]);

    const counter = new StatementCounter();
    const counted = kith.storage.db.withPlugin(counter);
    const together = await Promise.all(cases.map(({ reader, page }) => loadHomeFeedPage(counted, reader, page)));
    expect(together).toEqual(alone);
    const joined = kith.storage.capabilities.serverRoundTrips === true;
    // Five kinds of page (limits and bounds), three readers each.
    expect(counter.count).toBe(joined ? 5 : cases.length);
  });

  it("answers more pages than one statement joins, each in its place", async () => {
    const cases = Array.from({ length: 7 }, () =>
      asked().filter(({ page }) => page.maxId === undefined && page.sinceId === undefined && page.minId === undefined && page.limit === 40),
    ).flat();
    const alone: VisiblePage[] = [];
    for (const { reader, page } of cases) alone.push(await loadHomeFeedPage(kith.storage.db, reader, page));
    const counter = new StatementCounter();
    const counted = kith.storage.db.withPlugin(counter);
    expect(await Promise.all(cases.map(({ reader, page }) => loadHomeFeedPage(counted, reader, page)))).toEqual(alone);
    // 21 pages: a statement of 16 and one of 5.
    expect(counter.count).toBe(kith.storage.capabilities.serverRoundTrips === true ? 2 : cases.length);
  });

  it("answers reads of posts by id as each is answered alone, viewers' in one statement and guests' in another", async () => {
    const all = Object.values(posts);
    const some = [posts.bobDirect ?? "", posts.bobPrivate ?? "", posts.bobPublic ?? "", posts.bobPublic ?? "", "st_none"];
    const cases: { readonly ids: string[]; readonly viewerId: string | null }[] = [
      ...Object.values(readers).flatMap((viewerId) => [
        { ids: all, viewerId },
        { ids: some, viewerId },
      ]),
      { ids: all, viewerId: null },
      { ids: some.slice(1), viewerId: null },
    ];
    const byId = (found: readonly VisibleStatus[]) => [...found].sort((a, b) => a.post.id.localeCompare(b.post.id));
    const alone: VisibleStatus[][] = [];
    for (const { ids, viewerId } of cases) alone.push(byId(await loadVisiblePosts(kith.storage.db, ids, viewerId)));

    // What each may see differs: alice the direct post and her marks, erin not the direct post, a guest no private post.
    const [aliceAll, , erinAll, erinSome, , , guestAll] = alone;
    expect(aliceAll?.map((p) => p.post.id)).toContain(posts.bobDirect);
    expect(aliceAll?.find((p) => p.post.id === posts.bobPublic)?.marks).toMatchObject({ favourited: true });
    expect(erinAll?.map((p) => p.post.id)).not.toContain(posts.bobDirect);
    expect(erinAll?.find((p) => p.post.id === posts.bobMore2)?.marks).toMatchObject({ favourited: true });
    expect(erinSome?.map((p) => p.post.id)).toEqual([posts.bobPrivate, posts.bobPublic, posts.bobPublic].sort());
    expect(guestAll?.map((p) => p.post.id)).not.toContain(posts.bobPrivate);
    expect(guestAll?.every((p) => p.marks === null)).toBe(true);

    const counter = new StatementCounter();
    const counted = kith.storage.db.withPlugin(counter);
    const together = await Promise.all(cases.map(({ ids, viewerId }) => loadVisiblePosts(counted, ids, viewerId)));
    expect(together.map(byId)).toEqual(alone);
    expect(counter.count).toBe(kith.storage.capabilities.serverRoundTrips === true ? 2 : cases.length);
  });

  it("reads a page alone inside a transaction", async () => {
    const reader = readers.alice ?? "";
    const expected = await loadHomeFeedPage(kith.storage.db, reader, { limit: 40 });
    const counter = new StatementCounter();
    const pages = await kith.storage.transaction((trx) => {
      const counted = trx.withPlugin(counter);
      return Promise.all([loadHomeFeedPage(counted, reader, { limit: 40 }), loadHomeFeedPage(counted, reader, { limit: 40 })]);
    });
    expect(pages).toEqual([expected, expected]);
    expect(counter.count).toBe(2);
  });
});
