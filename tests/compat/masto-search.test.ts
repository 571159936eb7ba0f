/**
 * masto.js over real HTTP, on SQLite and PostgreSQL: search (visibility,
 * paging), filters v1 and v2 as written and as applied to timelines,
 * hashtags and what clients load on start (preferences, custom emojis,
 * trends, suggestions, announcements).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestUser } from "@kith/core/testing";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js search, filters, tags and start-up", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("mastosearchalice");
    bob = await compat.kith.createUser("mastosearchbob");
    await compat.kith.storage.db
      .updateTable("accounts")
      .set({ discoverable: true, display_name: "Bob Builder" })
      .where("id", "=", bob.account.id)
      .execute();
  });
  afterAll(() => compat?.close());

  it("searches posts, accounts and hashtags", async () => {
    const status = await compat.client(bob).v1.statuses.create({ status: "Lighthouse keeping notes #lighthouses" });
    const results = await compat.client(alice).v2.search.list({ q: "lighthouse" });
    expect(results.statuses.map((s) => s.id)).toEqual([status.id]);
    const tags = await compat.client(alice).v2.search.list({ q: "#lighthou", type: "hashtags" });
    expect(tags.hashtags.map((t) => t.name)).toEqual(["lighthouses"]);
    const accounts = await compat.client(alice).v2.search.list({ q: "builder", type: "accounts" });
    expect(accounts.accounts.map((a) => a.id)).toEqual([bob.account.id]);
    const v1 = await compat.client(alice).v1.accounts.search.list({ q: "mastosearchb" });
    expect(v1.map((a) => a.username)).toEqual(["mastosearchbob"]);
    const guest = await compat.client().v2.search.list({ q: "lighthouse" });
    expect(guest.statuses).toEqual([]);
    // Visibility holds in search: a followers-only post is not found by one who does not follow.
    const secret = await compat.client(bob).v1.statuses.create({ status: "lighthouse secrets", visibility: "private" });
    expect((await compat.client(alice).v2.search.list({ q: "lighthouse", type: "statuses" })).statuses.map((s) => s.id)).not.toContain(
      secret.id,
    );
    expect((await compat.client(bob).v2.search.list({ q: "lighthouse", type: "statuses" })).statuses.map((s) => s.id)).toContain(secret.id);
    const firstPage = await compat.client(bob).v2.search.list({ q: "lighthouse", type: "statuses", limit: 1 });
    const secondPage = await compat.client(bob).v2.search.list({ q: "lighthouse", type: "statuses", limit: 1, offset: 1 });
    expect([...firstPage.statuses, ...secondPage.statuses].map((s) => s.id)).toEqual([secret.id, status.id]);
  });

  it("manages filters, v2 and v1", async () => {
    const client = compat.client(alice);
    const filter = await client.v2.filters.create({
      title: "Birds",
      context: ["home", "public"],
      filterAction: "warn",
      keywordsAttributes: [{ keyword: "gull", wholeWord: true }],
    });
    expect(filter).toMatchObject({ title: "Birds", filterAction: "warn", keywords: [{ keyword: "gull", wholeWord: true }] });
    const keyword = await client.v2.filters.$select(filter.id).keywords.create({ keyword: "tern", wholeWord: false });
    expect(keyword.keyword).toBe("tern");
    const updated = await client.v2.filters.$select(filter.id).update({ title: "Seabirds" });
    expect(updated.title).toBe("Seabirds");
    expect((await client.v2.filters.list()).map((f) => f.id)).toContain(filter.id);
    const v1 = await client.v1.filters.list();
    expect(v1.map((f) => f.phrase).sort()).toEqual(["gull", "tern"]);
    await client.v2.filters.$select(filter.id).remove();
    expect(await client.v2.filters.list()).toEqual([]);
  });

  it("applies filters where clients read: warn marks the post, hide leaves it out; v1 filters written and removed", async () => {
    const client = compat.client(alice);
    await client.v1.accounts.$select(bob.account.id).follow();
    const warned = await compat.client(bob).v1.statuses.create({ status: "a herring gull at the pier" });
    const hidden = await compat.client(bob).v1.statuses.create({ status: "spoilers for the finale" });
    const warn = await client.v2.filters.create({
      title: "Gulls",
      context: ["home", "public"],
      filterAction: "warn",
      keywordsAttributes: [{ keyword: "gull", wholeWord: true }],
    });
    const v1 = await client.v1.filters.create({ phrase: "finale", context: ["home"], irreversible: true, wholeWord: false });
    expect(v1).toMatchObject({ phrase: "finale", context: ["home"], irreversible: true, wholeWord: false, expiresAt: null });

    const home = await client.v1.timelines.home.list({ limit: 40 });
    const ids = home.map((s) => s.id);
    expect(ids).toContain(warned.id);
    expect(ids).not.toContain(hidden.id);
    const marked = home.find((s) => s.id === warned.id);
    expect(marked?.filtered?.map((f) => [f.filter.id, f.keywordMatches])).toEqual([[warn.id, ["gull"]]]);
    // The hide filter is for home only: the public timeline still shows the post.
    expect((await client.v1.timelines.public.list({ local: true, limit: 40 })).map((s) => s.id)).toContain(hidden.id);

    const changed = await client.v1.filters.$select(v1.id).update({ phrase: "the finale", context: ["home", "public"] });
    expect(changed).toMatchObject({ id: v1.id, phrase: "the finale", context: ["home", "public"] });
    expect((await client.v1.filters.$select(v1.id).fetch()).phrase).toBe("the finale");
    await client.v1.filters.$select(v1.id).remove();
    await client.v2.filters.$select(warn.id).remove();
    expect(await client.v1.filters.list()).toEqual([]);
    expect((await client.v1.timelines.home.list({ limit: 40 })).map((s) => s.id)).toContain(hidden.id);
    await expect(compat.client(bob).v1.filters.$select(v1.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    await client.v1.accounts.$select(bob.account.id).unfollow();
  });

  it("follows hashtags and reads them back", async () => {
    const client = compat.client(alice);
    const followed = await client.v1.tags.$select("lighthouses").follow();
    expect(followed.following).toBe(true);
    expect((await client.v1.followedTags.list()).map((t) => t.name)).toEqual(["lighthouses"]);
    const fetched = await client.v1.tags.$select("lighthouses").fetch();
    expect(fetched.history?.[0]).toMatchObject({ uses: "1", accounts: "1" });
    expect((await client.v1.tags.$select("lighthouses").unfollow()).following).toBe(false);
  });

  it("loads what clients read on start", async () => {
    const client = compat.client(alice);
    expect(await client.v1.preferences.fetch()).toMatchObject({ "posting:default:visibility": "public" });
    expect(await client.v1.customEmojis.list()).toEqual([]);
    const now = compat.kith.clock.now().toISOString();
    await compat.kith.storage.db
      .insertInto("custom_emojis")
      .values({
        id: compat.kith.ids.next("emoji"),
        shortcode: "blobfox",
        image_remote_url: "https://cdn.example/blobfox.png",
        category: "foxes",
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect(await compat.client().v1.customEmojis.list()).toEqual([
      {
        shortcode: "blobfox",
        url: "https://cdn.example/blobfox.png",
        staticUrl: "https://cdn.example/blobfox.png",
        visibleInPicker: true,
        category: "foxes",
      },
    ]);
    expect(await client.v1.announcements.list()).toEqual([]);
    expect(await client.v1.trends.links.list()).toEqual([]);
    const tags = await client.v1.trends.tags.list();
    expect(tags.map((t) => t.name)).toContain("lighthouses");
    const favourited = await compat.client(bob).v1.statuses.create({ status: "a post worth a star" });
    await client.v1.statuses.$select(favourited.id).favourite();
    expect((await client.v1.trends.statuses.list()).map((s) => s.id)).toContain(favourited.id);
    const suggestions = await client.v2.suggestions.list();
    expect(suggestions.map((s) => s.account.id)).toContain(bob.account.id);
  });
});
