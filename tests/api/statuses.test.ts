import type { TestKith, TestUser } from "@kith/core/testing";
import { eventually } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StatusBody, block, follow, get, post } from "./statuses-support.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("posts", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
  });
  afterAll(() => kith.close());

  const fresh = () => kith.createUser(`poster${++serial}`);

  describe("creating", () => {
    it("names the application of the session a post is made through, and none for a session without one", async () => {
      const app = await kith.request("POST", "/api/v1/apps", {
        json: { client_name: "Poster App", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", website: "https://poster.example" },
      });
      expect(app.status).toBe(200);
      const { client_id } = (await app.json()) as { client_id: string };
      const row = await kith.storage.db.selectFrom("oauth_apps").select("id").where("client_id", "=", client_id).executeTakeFirstOrThrow();
      const session = await kith.services.sessions.issue({ accountId: alice.account.id, appId: row.id, scopes: ["read", "write"] });
      const response = await kith.request("POST", "/api/v1/statuses", { token: session.accessToken, json: { status: "from an app" } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as StatusBody).application).toEqual({ name: "Poster App", website: "https://poster.example" });
      expect((await post(kith, alice, { status: "from no app" })).application).toBeNull();
    });

    it("renders mentions, hashtags and links into Mastodon's HTML and records them", async () => {
      const status = await post(kith, alice, { status: "Hello @bob, see https://example.com #Kith #kith <script>" });
      expect(status.content).toBe(
        '<p>Hello <span class="h-card" translate="no"><a href="https://kith.test/@bob" class="u-url mention">@<span>bob</span></a></span>, see <a href="https://example.com" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com</span><span class="invisible"></span></a> <a href="https://kith.test/tags/kith" class="mention hashtag" rel="tag">#<span>Kith</span></a> <a href="https://kith.test/tags/kith" class="mention hashtag" rel="tag">#<span>kith</span></a> &lt;script&gt;</p>',
      );
      expect(status.mentions).toEqual([{ id: bob.account.id, username: "bob", acct: "bob", url: "https://kith.test/@bob" }]);
      expect(status.tags).toEqual([{ name: "kith", url: "https://kith.test/tags/kith", history: [] }]);
      expect(status.visibility).toBe("public");
      expect(status.uri).toBe(`https://kith.test/users/alice/statuses/${status.id}`);
      expect(status.url).toBe(`https://kith.test/@alice/${status.id}`);
      expect(status.text).toBeNull();
      expect(status.favourited).toBe(false);
      expect(status.filtered).toEqual([]);
      expect(status.account.id).toBe(alice.account.id);
      const tag = await kith.storage.db.selectFrom("tags").selectAll().where("name", "=", "kith").executeTakeFirstOrThrow();
      expect(tag.display_name).toBe("Kith");
    });

    it("links mentions of known remote accounts and of local ones by full handle; unknown ones stay text", async () => {
      const now = new Date().toISOString();
      const remoteId = `us_${"r".repeat(26)}`;
      await kith.storage.db
        .insertInto("accounts")
        .values({
          id: remoteId,
          username: "Dana",
          domain: "remote.example",
          acct_key: "dana@remote.example",
          display_name: "Dana",
          note: "",
          actor_type: "Person",
          locked: false,
          discoverable: true,
          uri: "https://remote.example/users/Dana",
          url: "https://remote.example/@Dana",
          created_at: now,
          updated_at: now,
          suspended_at: null,
          silenced_at: null,
          sensitized_at: null,
        } as never)
        .execute();
      const status = await post(kith, alice, { status: "hi @dana@Remote.Example and @bob@kith.test and @ghost@nowhere.example" });
      expect(status.mentions.map((m) => [m.acct, m.url])).toEqual([
        ["Dana@remote.example", "https://remote.example/@Dana"],
        ["bob", "https://kith.test/@bob"],
      ]);
      expect(status.content).toContain('<a href="https://remote.example/@Dana" class="u-url mention">@<span>Dana</span></a>');
      expect(status.content).toContain("@ghost@nowhere.example");
    });

    it("takes a form body with Rails keys and uses the author's default visibility", async () => {
      const user = await fresh();
      await kith.storage.db
        .updateTable("users")
        .set({ default_visibility: "unlisted" })
        .where("account_id", "=", user.account.id)
        .execute();
      const response = await kith.request("POST", "/api/v1/statuses", {
        token: user.token,
        form: { status: "form post", sensitive: "true", spoiler_text: "cw", language: "en" },
      });
      expect(response.status).toBe(200);
      const status = (await response.json()) as StatusBody;
      expect(status).toMatchObject({ visibility: "unlisted", sensitive: true, spoiler_text: "cw", language: "en" });
    });

    it("returns the same post for the same Idempotency-Key", async () => {
      const user = await fresh();
      const first = await post(kith, user, { status: "once" }, { "Idempotency-Key": "abc" });
      const second = await post(kith, user, { status: "once" }, { "Idempotency-Key": "abc" });
      expect(second.id).toBe(first.id);
      const other = await post(kith, bob, { status: "once" }, { "Idempotency-Key": "abc" });
      expect(other.id).not.toBe(first.id);
      const account = await kith.storage.db
        .selectFrom("accounts")
        .select("statuses_count")
        .where("id", "=", user.account.id)
        .executeTakeFirstOrThrow();
      expect(account.statuses_count).toBe(1);
      // An hour later the key is forgotten, as on Mastodon.
      kith.clock.advance(61 * 60 * 1000);
      const later = await post(kith, user, { status: "once" }, { "Idempotency-Key": "abc" });
      expect(later.id).not.toBe(first.id);
    });

    it("refuses empty, too long, unknown visibility, scheduled and unauthenticated posts", async () => {
      const empty = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "  " } });
      expect(empty.status).toBe(422);
      const long = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "x".repeat(501) } });
      expect(long.status).toBe(422);
      // A link counts as 23 characters however long it is.
      const linked = await kith.request("POST", "/api/v1/statuses", {
        token: alice.token,
        json: { status: `${"x".repeat(470)} https://example.com/${"y".repeat(200)}` },
      });
      expect(linked.status).toBe(200);
      const visibility = await kith.request("POST", "/api/v1/statuses", {
        token: alice.token,
        json: { status: "x", visibility: "everyone" },
      });
      expect(visibility.status).toBe(422);
      const scheduled = await kith.request("POST", "/api/v1/statuses", {
        token: alice.token,
        json: { status: "x", scheduled_at: "not a time" },
      });
      expect(scheduled.status).toBe(422);
      const guest = await kith.request("POST", "/api/v1/statuses", { json: { status: "x" } });
      expect(guest.status).toBe(401);
      const tooManyMedia = await kith.request("POST", "/api/v1/statuses", {
        token: alice.token,
        json: { status: "x", media_ids: ["1", "2", "3", "4", "5"] },
      });
      expect(tooManyMedia.status).toBe(422);
    });

    it("keeps reply counters, conversation and account counters in step", async () => {
      const root = await post(kith, alice, { status: "root" });
      const reply = await post(kith, bob, { status: "@alice reply", in_reply_to_id: root.id });
      expect(reply.in_reply_to_id).toBe(root.id);
      expect(reply.in_reply_to_account_id).toBe(alice.account.id);
      const rows = await kith.storage.db
        .selectFrom("statuses")
        .select(["id", "conversation_id"])
        .where("id", "in", [root.id, reply.id])
        .execute();
      expect(new Set(rows.map((row) => row.conversation_id)).size).toBe(1);
      const reloaded = (await (await get(kith, `/api/v1/statuses/${root.id}`)).json()) as StatusBody;
      expect(reloaded.replies_count).toBe(1);
      const missingParent = await kith.request("POST", "/api/v1/statuses", {
        token: bob.token,
        json: { status: "x", in_reply_to_id: "st_nope" },
      });
      expect(missingParent.status).toBe(404);
    });
  });

  describe("visibility", () => {
    it("shows public and unlisted posts to guests, private ones to followers and mentioned, direct ones to mentioned only", async () => {
      const author = await fresh();
      const follower = await fresh();
      const stranger = await fresh();
      await follow(kith, follower, author);
      const unlisted = await post(kith, author, { status: "unlisted", visibility: "unlisted" });
      const priv = await post(kith, author, { status: "private", visibility: "private" });
      const direct = await post(kith, author, { status: `@${stranger.account.username} direct`, visibility: "direct" });
      expect((await get(kith, `/api/v1/statuses/${unlisted.id}`)).status).toBe(200);
      expect((await get(kith, `/api/v1/statuses/${priv.id}`)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${priv.id}`, stranger.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${priv.id}`, follower.token)).status).toBe(200);
      expect((await get(kith, `/api/v1/statuses/${priv.id}`, author.token)).status).toBe(200);
      expect((await get(kith, `/api/v1/statuses/${direct.id}`, follower.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${direct.id}`, stranger.token)).status).toBe(200);
      // Every route on a hidden post answers 404.
      for (const path of ["context", "history", "reblogged_by", "favourited_by"]) {
        expect((await get(kith, `/api/v1/statuses/${priv.id}/${path}`, stranger.token)).status).toBe(404);
      }
      for (const action of ["favourite", "reblog", "bookmark", "mute", "pin", "subscribe", "highlight"]) {
        expect((await kith.request("POST", `/api/v1/statuses/${priv.id}/${action}`, { token: stranger.token })).status).toBe(404);
      }
      const many = (await (await get(kith, `/api/v1/statuses?id[]=${priv.id}&id[]=${unlisted.id}`, stranger.token)).json()) as StatusBody[];
      expect(many.map((s) => s.id)).toEqual([unlisted.id]);
    });

    it("hides posts across a block in either direction, and posts of suspended authors", async () => {
      const author = await fresh();
      const blocked = await fresh();
      const blocker = await fresh();
      const status = await post(kith, author, { status: "hello" });
      await block(kith, author, blocked);
      await block(kith, blocker, author);
      expect((await get(kith, `/api/v1/statuses/${status.id}`, blocked.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${status.id}`, blocker.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${status.id}`, bob.token)).status).toBe(200);
      await kith.storage.db
        .updateTable("accounts")
        .set({ suspended_at: new Date().toISOString() })
        .where("id", "=", author.account.id)
        .execute();
      expect((await get(kith, `/api/v1/statuses/${status.id}`, bob.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${status.id}`)).status).toBe(404);
    });

    it("leaves out of pages a suspended author's posts and the boosts of them", async () => {
      const author = await fresh();
      const booster = await fresh();
      const reader = await fresh();
      // The reader follows the booster only: the author's post reaches the reader's home as the booster's boost.
      await follow(kith, reader, booster);
      const status = await post(kith, author, { status: "boosted one" });
      const boosted = await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: booster.token });
      expect(boosted.status).toBe(200);
      const boost = (await boosted.json()) as StatusBody;
      const own = await post(kith, booster, { status: "booster's own" });
      const home = async () =>
        ((await (await get(kith, "/api/v1/timelines/home?limit=40", reader.token)).json()) as StatusBody[]).map((s) => s.id);
      const publicPage = async () =>
        ((await (await get(kith, "/api/v1/timelines/public?limit=40")).json()) as StatusBody[]).map((s) => s.id);
      await eventually(async () => expect(await home()).toEqual([own.id, boost.id]));
      expect(await publicPage()).toEqual(expect.arrayContaining([status.id, own.id]));
      const suspend = (user: TestUser) =>
        kith.storage.db.updateTable("accounts").set({ suspended_at: new Date().toISOString() }).where("id", "=", user.account.id).execute();
      await suspend(author);
      expect(await home()).toEqual([own.id]);
      expect(await publicPage()).not.toContain(status.id);
      await suspend(booster);
      expect(await home()).toEqual([]);
      expect(await publicPage()).not.toContain(own.id);
    });

    it("filters a thread's context by what the viewer may see", async () => {
      const author = await fresh();
      const root = await post(kith, author, { status: "root" });
      const publicReply = await post(kith, bob, { status: "public reply", in_reply_to_id: root.id });
      const privateReply = await post(kith, carol, { status: "private reply", in_reply_to_id: root.id, visibility: "private" });
      const nested = await post(kith, author, { status: "nested", in_reply_to_id: publicReply.id });
      const guest = (await (await get(kith, `/api/v1/statuses/${root.id}/context`)).json()) as {
        ancestors: StatusBody[];
        descendants: StatusBody[];
      };
      expect(guest.ancestors).toEqual([]);
      expect(guest.descendants.map((s) => s.id)).toEqual([publicReply.id, nested.id]);
      const asCarol = (await (await get(kith, `/api/v1/statuses/${root.id}/context`, carol.token)).json()) as { descendants: StatusBody[] };
      expect(asCarol.descendants.map((s) => s.id)).toEqual([publicReply.id, nested.id, privateReply.id]);
      const fromNested = (await (await get(kith, `/api/v1/statuses/${nested.id}/context`)).json()) as { ancestors: StatusBody[] };
      expect(fromNested.ancestors.map((s) => s.id)).toEqual([root.id, publicReply.id]);
    });
  });

  describe("editing and deleting", () => {
    it("edits with history and source, and only the author may", async () => {
      const status = await post(kith, alice, { status: "first #one", spoiler_text: "" });
      const notMine = await kith.request("PUT", `/api/v1/statuses/${status.id}`, { token: bob.token, json: { status: "hijack" } });
      expect(notMine.status).toBe(403);
      const tooLong = await kith.request("PUT", `/api/v1/statuses/${status.id}`, { token: alice.token, json: { status: "x".repeat(600) } });
      expect(tooLong.status).toBe(422);
      const edited = await kith.request("PUT", `/api/v1/statuses/${status.id}`, {
        token: alice.token,
        json: { status: "second #two", spoiler_text: "cw" },
      });
      expect(edited.status).toBe(200);
      const body = (await edited.json()) as StatusBody;
      expect(body.content).toContain("second");
      expect(body.tags.map((t) => t.name)).toEqual(["two"]);
      expect(body.edited_at).not.toBeNull();
      expect(body.sensitive).toBe(true);
      const history = (await (await get(kith, `/api/v1/statuses/${status.id}/history`)).json()) as {
        content: string;
        spoiler_text: string;
      }[];
      expect(history.map((h) => h.spoiler_text)).toEqual(["", "cw"]);
      expect(history[0]?.content).toContain("first");
      const source = await get(kith, `/api/v1/statuses/${status.id}/source`, alice.token);
      expect(await source.json()).toEqual({ id: status.id, text: "second #two", spoiler_text: "cw" });
      expect((await get(kith, `/api/v1/statuses/${status.id}/source`, bob.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${status.id}/source`)).status).toBe(401);
    });

    it("history of a post never edited is the post itself", async () => {
      const status = await post(kith, alice, { status: "never edited" });
      const history = (await (await get(kith, `/api/v1/statuses/${status.id}/history`)).json()) as unknown[];
      expect(history).toHaveLength(1);
    });

    it("deletes with the source for redrafting, keeps counters, and refuses others' posts", async () => {
      const user = await fresh();
      const root = await post(kith, alice, { status: "root for delete" });
      const reply = await post(kith, user, { status: "to be deleted", in_reply_to_id: root.id });
      await kith.request("POST", `/api/v1/statuses/${reply.id}/favourite`, { token: bob.token });
      await kith.request("POST", `/api/v1/statuses/${reply.id}/reblog`, { token: bob.token });
      const refused = await kith.request("DELETE", `/api/v1/statuses/${reply.id}`, { token: bob.token });
      expect(refused.status).toBe(403);
      const deleted = await kith.request("DELETE", `/api/v1/statuses/${reply.id}`, { token: user.token });
      expect(deleted.status).toBe(200);
      expect(((await deleted.json()) as StatusBody).text).toBe("to be deleted");
      expect((await get(kith, `/api/v1/statuses/${reply.id}`)).status).toBe(404);
      const parent = (await (await get(kith, `/api/v1/statuses/${root.id}`)).json()) as StatusBody;
      expect(parent.replies_count).toBe(0);
      const account = await kith.storage.db
        .selectFrom("accounts")
        .select("statuses_count")
        .where("id", "=", user.account.id)
        .executeTakeFirstOrThrow();
      expect(account.statuses_count).toBe(0);
      const boosts = await kith.storage.db.selectFrom("statuses").select("id").where("reblog_of_id", "=", reply.id).execute();
      expect(boosts).toEqual([]);
      expect((await kith.request("DELETE", `/api/v1/statuses/${reply.id}`, { token: user.token })).status).toBe(404);
    });
  });

  describe("reactions", () => {
    it("favourites and unfavourites, counted once, listed in favourited_by and /favourites with Link paging", async () => {
      const status = await post(kith, alice, { status: "like me" });
      const users = [bob, carol, await fresh()];
      for (const user of users) {
        const response = await kith.request("POST", `/api/v1/statuses/${status.id}/favourite`, { token: user.token });
        expect(response.status).toBe(200);
        expect(((await response.json()) as StatusBody).favourited).toBe(true);
      }
      await kith.request("POST", `/api/v1/statuses/${status.id}/favourite`, { token: bob.token });
      const counted = (await (await get(kith, `/api/v1/statuses/${status.id}`)).json()) as StatusBody;
      expect(counted.favourites_count).toBe(3);
      const page = await get(kith, `/api/v1/statuses/${status.id}/favourited_by?limit=2`);
      const accounts = (await page.json()) as { id: string }[];
      expect(accounts.map((a) => a.id)).toEqual([users[2]?.account.id, carol.account.id]);
      const next = /<([^>]+)>; rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
      expect(next).toBeDefined();
      const rest = (await (await kith.request("GET", new URL(next ?? "").pathname + new URL(next ?? "").search)).json()) as {
        id: string;
      }[];
      expect(rest.map((a) => a.id)).toEqual([bob.account.id]);
      const favs = (await (await get(kith, "/api/v1/favourites", bob.token)).json()) as StatusBody[];
      expect(favs[0]?.id).toBe(status.id);
      const undone = await kith.request("POST", `/api/v1/statuses/${status.id}/unfavourite`, { token: bob.token });
      expect(((await undone.json()) as StatusBody).favourites_count).toBe(2);
      expect((await get(kith, "/api/v1/favourites")).status).toBe(401);
    });

    it("boosts public posts once, refuses others' private and direct posts, and undoes", async () => {
      const status = await post(kith, alice, { status: "boost me" });
      const boost = await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: bob.token });
      expect(boost.status).toBe(200);
      const boostBody = (await boost.json()) as StatusBody;
      expect(boostBody.reblog?.id).toBe(status.id);
      expect(boostBody.reblog?.reblogged).toBe(true);
      expect(boostBody.account.id).toBe(bob.account.id);
      const again = (await (await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: bob.token })).json()) as StatusBody;
      expect(again.id).toBe(boostBody.id);
      const original = (await (await get(kith, `/api/v1/statuses/${status.id}`)).json()) as StatusBody;
      expect(original.reblogs_count).toBe(1);
      const by = (await (await get(kith, `/api/v1/statuses/${status.id}/reblogged_by`)).json()) as { id: string }[];
      expect(by.map((a) => a.id)).toEqual([bob.account.id]);
      const viaBoost = (await (await get(kith, `/api/v1/statuses/${boostBody.id}`)).json()) as StatusBody;
      expect(viaBoost.reblog?.id).toBe(status.id);

      await follow(kith, bob, alice);
      const priv = await post(kith, alice, { status: "followers", visibility: "private" });
      expect((await kith.request("POST", `/api/v1/statuses/${priv.id}/reblog`, { token: bob.token })).status).toBe(422);
      expect((await kith.request("POST", `/api/v1/statuses/${priv.id}/reblog`, { token: alice.token })).status).toBe(200);
      const direct = await post(kith, alice, { status: "@bob direct", visibility: "direct" });
      expect((await kith.request("POST", `/api/v1/statuses/${direct.id}/reblog`, { token: bob.token })).status).toBe(422);

      const undone = await kith.request("POST", `/api/v1/statuses/${status.id}/unreblog`, { token: bob.token });
      expect(undone.status).toBe(200);
      const afterUndo = (await undone.json()) as StatusBody;
      expect(afterUndo).toMatchObject({ id: status.id, reblogged: false, reblogs_count: 0 });
      expect((await get(kith, `/api/v1/statuses/${boostBody.id}`)).status).toBe(404);
    });

    it("deletes one's own boost through DELETE, never someone else's", async () => {
      const status = await post(kith, alice, { status: "boost and delete" });
      const boost = (await (await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: bob.token })).json()) as StatusBody;
      expect((await kith.request("DELETE", `/api/v1/statuses/${boost.id}`, { token: alice.token })).status).toBe(403);
      expect((await kith.request("PUT", `/api/v1/statuses/${boost.id}`, { token: bob.token, json: { status: "x" } })).status).toBe(403);
      const deleted = await kith.request("DELETE", `/api/v1/statuses/${boost.id}`, { token: bob.token });
      expect(deleted.status).toBe(200);
      const original = (await (await get(kith, `/api/v1/statuses/${status.id}`)).json()) as StatusBody;
      expect(original.reblogs_count).toBe(0);
    });

    it("hides a boost whose boosted post the viewer may not see", async () => {
      const author = await fresh();
      const status = await post(kith, author, { status: "mine" });
      const boost = (await (await kith.request("POST", `/api/v1/statuses/${status.id}/reblog`, { token: bob.token })).json()) as StatusBody;
      await block(kith, author, carol);
      expect((await get(kith, `/api/v1/statuses/${boost.id}`, carol.token)).status).toBe(404);
      expect((await get(kith, `/api/v1/statuses/${boost.id}`, alice.token)).status).toBe(200);
    });

    it("bookmarks, lists bookmarks with Link paging, and mutes conversations", async () => {
      const user = await fresh();
      const first = await post(kith, alice, { status: "bm 1" });
      const second = await post(kith, alice, { status: "bm 2" });
      for (const s of [first, second]) {
        const response = await kith.request("POST", `/api/v1/statuses/${s.id}/bookmark`, { token: user.token });
        expect(((await response.json()) as StatusBody).bookmarked).toBe(true);
      }
      const page = await get(kith, "/api/v1/bookmarks?limit=1", user.token);
      expect(((await page.json()) as StatusBody[]).map((s) => s.id)).toEqual([second.id]);
      expect(page.headers.get("link")).toContain('rel="next"');
      await kith.request("POST", `/api/v1/statuses/${second.id}/unbookmark`, { token: user.token });
      const after = (await (await get(kith, "/api/v1/bookmarks", user.token)).json()) as StatusBody[];
      expect(after.map((s) => s.id)).toEqual([first.id]);
      const muted = await kith.request("POST", `/api/v1/statuses/${first.id}/mute`, { token: user.token });
      expect(((await muted.json()) as StatusBody).muted).toBe(true);
      const unmuted = await kith.request("POST", `/api/v1/statuses/${first.id}/unmute`, { token: user.token });
      expect(((await unmuted.json()) as StatusBody).muted).toBe(false);
    });

    it("subscribes to a post's replies", async () => {
      const status = await post(kith, alice, { status: "subscribe here" });
      const response = await kith.request("POST", `/api/v1/statuses/${status.id}/subscribe`, { token: bob.token });
      expect(response.status).toBe(200);
      const rows = await kith.storage.db.selectFrom("status_subscriptions").selectAll().where("status_id", "=", status.id).execute();
      expect(rows.map((r) => r.account_id)).toEqual([bob.account.id]);
      await kith.request("POST", `/api/v1/statuses/${status.id}/unsubscribe`, { token: bob.token });
      expect(await kith.storage.db.selectFrom("status_subscriptions").selectAll().where("status_id", "=", status.id).execute()).toEqual([]);
    });

    it("lets only the root's author highlight replies of the thread, shown in context", async () => {
      const root = await post(kith, alice, { status: "thread" });
      const reply = await post(kith, bob, { status: "good reply", in_reply_to_id: root.id });
      const deeper = await post(kith, carol, { status: "deeper", in_reply_to_id: reply.id });
      expect((await kith.request("POST", `/api/v1/statuses/${deeper.id}/highlight`, { token: bob.token })).status).toBe(403);
      expect((await kith.request("POST", `/api/v1/statuses/${root.id}/highlight`, { token: alice.token })).status).toBe(422);
      expect((await kith.request("POST", `/api/v1/statuses/${deeper.id}/highlight`, { token: alice.token })).status).toBe(200);
      const context = (await (await get(kith, `/api/v1/statuses/${reply.id}/context`)).json()) as { highlights: StatusBody[] };
      expect(context.highlights.map((s) => s.id)).toEqual([deeper.id]);
      await kith.request("POST", `/api/v1/statuses/${deeper.id}/unhighlight`, { token: alice.token });
      const after = (await (await get(kith, `/api/v1/statuses/${root.id}/context`)).json()) as { highlights: StatusBody[] };
      expect(after.highlights).toEqual([]);
    });
  });

  describe("an account's posts", () => {
    it("filters replies, boosts, tags and media, and pages with Link", async () => {
      const user = await fresh();
      const tagged = await post(kith, user, { status: "with #Topic" });
      const other = await post(kith, alice, { status: "other" });
      const reply = await post(kith, user, { status: "reply", in_reply_to_id: other.id });
      const selfReply = await post(kith, user, { status: "self reply", in_reply_to_id: tagged.id });
      const boost = (await (await kith.request("POST", `/api/v1/statuses/${other.id}/reblog`, { token: user.token })).json()) as StatusBody;
      const path = `/api/v1/accounts/${user.account.id}/statuses`;
      const all = (await (await get(kith, path)).json()) as StatusBody[];
      expect(all.map((s) => s.id)).toEqual([boost.id, selfReply.id, reply.id, tagged.id]);
      const noReplies = (await (await get(kith, `${path}?exclude_replies=true&exclude_reblogs=true`)).json()) as StatusBody[];
      expect(noReplies.map((s) => s.id)).toEqual([selfReply.id, tagged.id]);
      const byTag = (await (await get(kith, `${path}?tagged=topic`)).json()) as StatusBody[];
      expect(byTag.map((s) => s.id)).toEqual([tagged.id]);
      const media = (await (await get(kith, `${path}?only_media=true`)).json()) as StatusBody[];
      expect(media).toEqual([]);
      const paged = await get(kith, `${path}?limit=2`);
      expect(((await paged.json()) as StatusBody[]).length).toBe(2);
      expect(paged.headers.get("link")).toContain(`max_id=${selfReply.id}`);
      expect((await get(kith, "/api/v1/accounts/us_00000000000000000000000000/statuses")).status).toBe(404);
    });
  });
});
