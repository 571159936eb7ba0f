/**
 * Search over the engines' own full-text indexes (FTS5 on SQLite, tsvector on
 * PostgreSQL), run on both. Rows are written directly: what is tested is what
 * search finds and hides, not how posts and relationships are made.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { searchStatusIds, searchTerms, termsAreCommon } from "../../packages/core/src/modules/search/search-store.js";
import { follow, remoteAccount } from "./timelines-fixtures.js";

type Visibility = "public" | "unlisted" | "private" | "direct";

interface SearchJson {
  accounts: { id: string; username: string }[];
  statuses: { id: string; content: string }[];
  hashtags: { id: string; name: string; url: string; history: unknown[]; following?: boolean }[];
}

describeOnEngines("search", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let erin: TestUser;
  const posts: Record<string, string> = {};

  async function post(author: TestUser, text: string, visibility: Visibility = "public"): Promise<string> {
    const id = kith.ids.next("status");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("statuses")
      .values({ id, account_id: author.account.id, text, content: `<p>${text}</p>`, visibility, created_at: now, updated_at: now })
      .execute();
    return id;
  }

  async function relate(table: "follows" | "blocks" | "mutes", from: TestUser, to: TestUser): Promise<void> {
    const now = kith.clock.now().toISOString();
    const base = { id: kith.ids.next("follow"), account_id: from.account.id, target_account_id: to.account.id, created_at: now };
    if (table === "follows")
      await kith.storage.db
        .insertInto("follows")
        .values({ ...base, follower_local: true, updated_at: now })
        .execute();
    if (table === "blocks") await kith.storage.db.insertInto("blocks").values(base).execute();
    if (table === "mutes")
      await kith.storage.db
        .insertInto("mutes")
        .values({ ...base, updated_at: now })
        .execute();
  }

  async function search(params: string, token?: string): Promise<SearchJson> {
    const response = await kith.request("GET", `/api/v2/search?${params}`, token ? { token } : {});
    expect(response.status).toBe(200);
    return response.json();
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("searcher");
    bob = await kith.createUser("bobbaker");
    carol = await kith.createUser("carolquiet");
    dave = await kith.createUser("daveblocked");
    erin = await kith.createUser("erinmuted");
    await kith.storage.db
      .updateTable("accounts")
      .set({ display_name: "Robert Baker", discoverable: true })
      .where("id", "=", bob.account.id)
      .execute();
    await kith.storage.db
      .updateTable("accounts")
      .set({ discoverable: true })
      .where("id", "in", [dave.account.id, erin.account.id])
      .execute();
    await kith.storage.db.updateTable("accounts").set({ discoverable: false }).where("id", "=", carol.account.id).execute();
    await relate("blocks", alice, dave);
    await relate("mutes", alice, erin);

    posts.bobPublic = await post(bob, "My sourdough bread recipe");
    posts.bobPrivate = await post(bob, "Secret sourdough", "private");
    posts.carolPublic = await post(carol, "Sourdough starter tips");
    posts.carolFavourited = await post(carol, "Sourdough crumb shots");
    posts.davePublic = await post(dave, "sourdough from a blocked account");
    posts.erinPublic = await post(erin, "sourdough from a muted account");
    posts.aliceOwn = await post(alice, "my SOURDOUGH notes", "private");
    posts.unrelated = await post(bob, "Nothing to see here");
    await kith.storage.db
      .insertInto("favourites")
      .values({
        id: kith.ids.next("favourite"),
        account_id: alice.account.id,
        status_id: posts.carolFavourited,
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
  });
  afterAll(() => kith.close());

  it("finds posts the viewer may see and may search, newest first", async () => {
    const found = await search("q=sourdough&type=statuses", alice.token);
    expect(found.statuses.map((s) => s.id)).toEqual([posts.aliceOwn, posts.carolFavourited, posts.bobPublic]);
    expect(found.accounts).toEqual([]);
    expect(found.hashtags).toEqual([]);
  });

  it("shows a follower the private posts they may see", async () => {
    const follower = await kith.createUser(`follower${Math.random().toString(36).slice(2, 8)}`);
    await relate("follows", follower, bob);
    // Private posts are searchable by those who interacted with them; following alone reveals them in timelines, not search.
    const found = await search("q=secret&type=statuses", follower.token);
    expect(found.statuses).toEqual([]);
    await kith.storage.db
      .insertInto("bookmarks")
      .values({
        id: kith.ids.next("bookmark"),
        account_id: follower.account.id,
        status_id: posts.bobPrivate as string,
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    expect((await search("q=secret&type=statuses", follower.token)).statuses.map((s) => s.id)).toEqual([posts.bobPrivate]);
    expect((await search("q=secret&type=statuses", alice.token)).statuses).toEqual([]);
  });

  it("needs every word, ignores case and punctuation, and keeps the index current on edit and delete", async () => {
    expect((await search("q=Sourdough%20BREAD!&type=statuses", alice.token)).statuses.map((s) => s.id)).toEqual([posts.bobPublic]);
    expect((await search("q=sourdough%20pizza&type=statuses", alice.token)).statuses).toEqual([]);
    const id = await post(bob, "Focaccia today");
    expect((await search("q=focaccia&type=statuses", alice.token)).statuses.map((s) => s.id)).toEqual([id]);
    await kith.storage.db.updateTable("statuses").set({ text: "Ciabatta today" }).where("id", "=", id).execute();
    expect((await search("q=focaccia&type=statuses", alice.token)).statuses).toEqual([]);
    expect((await search("q=ciabatta&type=statuses", alice.token)).statuses.map((s) => s.id)).toEqual([id]);
    await kith.storage.db.deleteFrom("statuses").where("id", "=", id).execute();
    expect((await search("q=ciabatta&type=statuses", alice.token)).statuses).toEqual([]);
  });

  it("never finds a boost, even one carrying the words of its post", async () => {
    const boostId = kith.ids.next("status");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("statuses")
      .values({
        id: boostId,
        account_id: alice.account.id,
        reblog_of_id: posts.bobPublic,
        text: "My sourdough bread recipe",
        content: "",
        visibility: "public",
        created_at: now,
        updated_at: now,
      })
      .execute();
    try {
      const found = await search("q=sourdough%20bread&type=statuses", alice.token);
      expect(found.statuses.map((s) => s.id)).toEqual([posts.bobPublic]);
    } finally {
      await kith.storage.db.deleteFrom("statuses").where("id", "=", boostId).execute();
    }
  });

  it("filters posts by author, pages with max_id, min_id, limit and offset", async () => {
    expect((await search(`q=sourdough&type=statuses&account_id=${bob.account.id}`, alice.token)).statuses.map((s) => s.id)).toEqual([
      posts.bobPublic,
    ]);
    expect((await search("q=sourdough&type=statuses&limit=1", alice.token)).statuses.map((s) => s.id)).toEqual([posts.aliceOwn]);
    expect((await search("q=sourdough&type=statuses&limit=1&offset=1", alice.token)).statuses.map((s) => s.id)).toEqual([
      posts.carolFavourited,
    ]);
    expect((await search(`q=sourdough&type=statuses&max_id=${posts.aliceOwn}`, alice.token)).statuses.map((s) => s.id)).toEqual([
      posts.carolFavourited,
      posts.bobPublic,
    ]);
    expect((await search(`q=sourdough&type=statuses&min_id=${posts.bobPublic}`, alice.token)).statuses.map((s) => s.id)).toEqual([
      posts.aliceOwn,
      posts.carolFavourited,
    ]);
  });

  it("walks the newest posts window by window for common words, with the pages of the one-query search", async () => {
    const authors: [TestUser, Visibility][] = [
      [bob, "public"],
      [bob, "private"],
      [carol, "public"],
      [dave, "public"],
      [erin, "public"],
      [alice, "direct"],
      [bob, "unlisted"],
    ];
    const harbour: string[] = [];
    for (let i = 0; i < 21; i++) {
      const [author, visibility] = authors[i % authors.length] as [TestUser, Visibility];
      // Two posts in three also have "crème": a search of two words, one of them not ASCII, walks the windows too.
      harbour.push(await post(author, `Harbour lights, ${i % 3 === 0 ? "" : "crème "}evening ${i}`, visibility));
      if (i % 3 === 0) await post(bob, `An unrelated evening ${i}`);
    }
    const flavour = kith.storage.capabilities.fullTextSearch;
    const terms = searchTerms("harbour");
    expect(await termsAreCommon(kith.storage.db, flavour, terms, 3)).toBe(true);
    expect(await termsAreCommon(kith.storage.db, flavour, terms, 1_000)).toBe(false);
    const base = { viewerId: alice.account.id, terms, now: kith.clock.now().toISOString() };
    const pages = [
      { limit: 5, offset: 0 },
      { limit: 4, offset: 3 },
      { limit: 40, offset: 0 },
      { limit: 5, offset: 0, maxId: harbour[15] },
      { limit: 5, offset: 0, minId: harbour[4] },
      { limit: 3, offset: 2, maxId: harbour[18], minId: harbour[2] },
    ];
    const oneQuery = { commonTermsStatuses: Number.MAX_SAFE_INTEGER, windowStatuses: 1, growth: 1, maxWindows: 0 };
    const twoWords = searchTerms("HARBOUR crème");
    expect(await termsAreCommon(kith.storage.db, flavour, twoWords, 3)).toBe(true);
    for (const page of [...pages.map((p) => ({ ...p, terms })), ...pages.map((p) => ({ ...p, terms: twoWords }))]) {
      const expected = await searchStatusIds(kith.storage.db, flavour, { ...base, ...page }, oneQuery);
      expect(expected.length, JSON.stringify(page)).toBeGreaterThan(0);
      for (const windows of [
        { commonTermsStatuses: 3, windowStatuses: 4, growth: 1, maxWindows: 100 },
        { commonTermsStatuses: 3, windowStatuses: 1, growth: 2, maxWindows: 3 },
        { commonTermsStatuses: 3, windowStatuses: 1, growth: 3, maxWindows: 100 },
        { commonTermsStatuses: 3, windowStatuses: 2, growth: 1, maxWindows: 2 },
      ]) {
        expect(await searchStatusIds(kith.storage.db, flavour, { ...base, ...page }, windows), JSON.stringify({ page, windows })).toEqual(
          expected,
        );
      }
    }
    // The one-query search sees the visibility rules: blocked, muted, hidden and undiscoverable posts never come.
    const all = await searchStatusIds(kith.storage.db, flavour, { ...base, limit: 40, offset: 0 }, oneQuery);
    expect(all).toContain(harbour[0]);
    expect(all).not.toContain(harbour[3]);
    await kith.storage.db.deleteFrom("statuses").where("text", "like", "%evening%").execute();
  });

  it("gives guests accounts and hashtags but no posts, and refuses them offset and resolve", async () => {
    const found = await search("q=sourdough");
    expect(found.statuses).toEqual([]);
    expect((await search("q=bobbaker")).accounts.map((a) => a.id)).toEqual([bob.account.id]);
    expect((await kith.request("GET", "/api/v2/search?q=bob&offset=1")).status).toBe(401);
    expect((await kith.request("GET", "/api/v2/search?q=bob&resolve=true")).status).toBe(401);
    // Signed in, resolve of a query that is no handle or URL of another server searches here only.
    expect((await search("q=bobbaker&resolve=true", alice.token)).accounts.map((a) => a.id)).toEqual([bob.account.id]);
  });

  it("finds accounts by username prefix, acct and display-name words, hiding blocked and muted ones", async () => {
    expect((await search("q=bobb&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([bob.account.id]);
    expect((await search("q=%40bobbaker&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([bob.account.id]);
    expect((await search("q=bak&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([bob.account.id]);
    expect((await search("q=robert%20ba&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([bob.account.id]);
    expect((await search("q=daveblocked&type=accounts", alice.token)).accounts).toEqual([]);
    expect((await search("q=erinmuted&type=accounts", alice.token)).accounts).toEqual([]);
    expect((await search("q=daveblocked&type=accounts", bob.token)).accounts.map((a) => a.id)).toEqual([dave.account.id]);
    expect((await search("q=bob&type=accounts&following=true", alice.token)).accounts).toEqual([]);
    const response = await kith.request("GET", "/api/v1/accounts/search?q=carol", { token: alice.token });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }[]).map((a) => a.id)).toEqual([carol.account.id]);
    expect((await kith.request("GET", "/api/v1/accounts/search?q=carol")).status).toBe(401);
  });

  it("finds the caller too, as Mastodon does, in following-only search as well", async () => {
    expect((await search("q=searcher&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([alice.account.id]);
    expect((await search("q=searcher&type=accounts&following=true", alice.token)).accounts.map((a) => a.id)).toEqual([alice.account.id]);
    const response = await kith.request("GET", "/api/v1/accounts/search?q=searcher&following=true", { token: alice.token });
    expect(((await response.json()) as { id: string }[]).map((a) => a.id)).toEqual([alice.account.id]);
  });

  it("keeps accounts of a limited domain out of account search, except for their followers and their exact handle", async () => {
    const limited = await remoteAccount(kith, "limitedbaker", "limited.example");
    expect((await search("q=limitedbaker&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([limited]);
    const block = await kith.services.domainPolicy.createBlock({ domain: "limited.example", severity: "LIMIT" });
    try {
      expect((await search("q=limitedbaker&type=accounts", alice.token)).accounts).toEqual([]);
      expect((await search("q=limitedbaker%40limited.example&type=accounts", alice.token)).accounts.map((a) => a.id)).toEqual([limited]);
      await follow(kith, bob.account.id, limited);
      expect((await search("q=limitedbaker&type=accounts", bob.token)).accounts.map((a) => a.id)).toEqual([limited]);
    } finally {
      await kith.services.domainPolicy.deleteBlock(block.id);
    }
  });

  it("finds hashtags by prefix, the exact name first", async () => {
    const now = kith.clock.now().toISOString();
    for (const name of ["sourness", "sour", "sourdough"]) {
      await kith.storage.db
        .insertInto("tags")
        .values({ id: kith.ids.next("tag"), name, display_name: name, created_at: now, updated_at: now, last_status_at: now })
        .execute();
    }
    const found = await search("q=%23sour&type=hashtags", alice.token);
    expect(found.hashtags.map((t) => t.name)).toEqual(["sour", "sourdough", "sourness"]);
    expect(found.hashtags[0]).toMatchObject({ following: false, url: expect.stringMatching(/\/tags\/sour$/) });
    expect(found.hashtags[0]?.history).toHaveLength(7);
    expect((await search("q=%23sour")).accounts).toEqual([]);
  });

  it("refuses bad input", async () => {
    expect((await kith.request("GET", "/api/v2/search", { token: alice.token })).status).toBe(400);
    expect((await kith.request("GET", "/api/v2/search?q=x&type=people", { token: alice.token })).status).toBe(422);
    expect((await kith.request("GET", "/api/v2/search?q=x&offset=-1", { token: alice.token })).status).toBe(422);
    // Operators of either query language are words, not syntax.
    expect((await search("q=%22sourdough%20OR%20*%20%3A*%20%26", alice.token)).statuses).toEqual([]);
    expect((await search("q=%25%25", alice.token)).accounts).toEqual([]);
  });
});
