import { createKith } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { isLocalAccount } from "../api/timelines-fixtures.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";
import { makePng } from "../support/media-files.js";
import { giveGrants } from "../support/roles.js";

const AP = "application/activity+json";
type Json = Record<string, unknown>;

describeOnEngines("ActivityPub collections and objects", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(async () => {
    await kith.close();
  });

  async function get(path: string): Promise<{ status: number; body: Json }> {
    const response = await kith.request("GET", path, { headers: { accept: AP } });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  async function remoteAccount(username: string, domain: string): Promise<string> {
    const id = kith.ids.next("user");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("accounts")
      .values({
        id,
        username,
        domain,
        acct_key: `${username}@${domain}`,
        display_name: "",
        note: "",
        actor_type: "Person",
        locked: false,
        discoverable: true,
        uri: `https://${domain}/users/${username}`,
        url: null,
        created_at: now,
        updated_at: now,
        suspended_at: null,
        silenced_at: null,
        sensitized_at: null,
        avatar_media_id: null,
        header_media_id: null,
        avatar_remote_url: null,
        header_remote_url: null,
        last_status_at: null,
        moved_to_account_id: null,
      })
      .execute();
    return id;
  }

  async function follow(accountId: string, targetId: string): Promise<void> {
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("follows")
      .values({
        id: kith.ids.next("follow"),
        account_id: accountId,
        target_account_id: targetId,
        follower_local: await isLocalAccount(kith, accountId),
        languages: null,
        uri: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  async function post(accountId: string, visibility: string, content: string, extra: Json = {}): Promise<string> {
    const id = kith.ids.next("status");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("statuses")
      .values({
        id,
        account_id: accountId,
        uri: null,
        url: null,
        in_reply_to_id: null,
        in_reply_to_account_id: null,
        reblog_of_id: null,
        conversation_id: null,
        content,
        visibility: visibility as "public",
        language: "en",
        application_id: null,
        created_at: now,
        updated_at: now,
        edited_at: null,
        ...extra,
      })
      .execute();
    return id;
  }

  it("pages followers and following from the follows table, with counts", async () => {
    const alice = (await kith.createUser("alice")).account;
    const local = (await kith.createUser("bob")).account;
    await follow(local.id, alice.id);
    for (let i = 0; i < 41; i++) await follow(await remoteAccount(`fan${i}`, "remote.example"), alice.id);
    await follow(alice.id, local.id);

    const followers = await get("/users/alice/followers");
    expect(followers.status).toBe(200);
    expect(followers.body).toMatchObject({ type: "OrderedCollection", totalItems: 42 });
    const first = await get(new URL(String(followers.body.first)).pathname + new URL(String(followers.body.first)).search);
    const firstItems = first.body.orderedItems as string[];
    expect(firstItems).toHaveLength(40);
    expect(firstItems[0]).toBe("https://remote.example/users/fan40");
    const next = String(first.body.next);
    const second = await get(new URL(next).pathname + new URL(next).search);
    expect(second.body.orderedItems).toEqual(["https://remote.example/users/fan0", "https://kith.test/users/bob"]);
    expect(second.body.next).toBeUndefined();

    const following = await get("/users/alice/following");
    expect(following.body).toMatchObject({ totalItems: 1 });
    const page = String(following.body.first);
    expect((await get(new URL(page).pathname + new URL(page).search)).body.orderedItems).toEqual(["https://kith.test/users/bob"]);
  });

  it("shows only counts when the account hides its collections", async () => {
    const alice = (await kith.createUser("alice")).account;
    await follow(await remoteAccount("fan", "remote.example"), alice.id);
    // Raw SQL: the column's Generated<DbBool> type does not accept a plain boolean in updates.
    await sql`update accounts set hide_collections = ${true} where id = ${alice.id}`.execute(kith.storage.db);
    const followers = await get("/users/alice/followers");
    expect(followers.body.totalItems).toBe(1);
    const first = String(followers.body.first);
    expect((await get(new URL(first).pathname + new URL(first).search)).body.orderedItems ?? []).toEqual([]);
  });

  it("tags each status of an outbox page with its own custom emojis only", async () => {
    const staff = await kith.createUser("staff");
    const alice = await kith.createUser("alice");
    await giveGrants(kith, staff.account.id, [{ resource: "CustomEmojis", access: ["Add", "Modify", "Delete"], scope: "global" }]);
    for (const shortcode of ["blobcat", "blobfox"]) {
      const body = new FormData();
      body.set("shortcode", shortcode);
      body.set("image", new File([await makePng(16, 16)], `${shortcode}.png`, { type: "image/png" }));
      expect((await kith.request("POST", "/api/v1/admin/custom_emojis", { token: staff.token, body })).status).toBe(200);
    }
    for (const status of ["a :blobcat: here", "a :blobfox: there", "none at all"]) {
      expect((await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status, visibility: "public" } })).status).toBe(
        200,
      );
    }

    const first = String((await get("/users/alice/outbox")).body.first);
    const items = (await get(new URL(first).pathname + new URL(first).search)).body.orderedItems as Json[];
    const emojiNames = (item: Json) =>
      ([(item.object as Json).tag ?? []].flat() as Json[]).filter((tag) => tag.type === "Emoji").map((tag) => tag.name);
    expect(items.map(emojiNames)).toEqual([[], [":blobfox:"], [":blobcat:"]]);
  });

  it("fills the outbox with Create activities addressed by visibility, and serves public Notes", async () => {
    const alice = (await kith.createUser("alice")).account;
    const open = await post(alice.id, "public", "<p>hello</p>");
    const quiet = await post(alice.id, "unlisted", "<p>quiet</p>");
    const secret = await post(alice.id, "private", "<p>friends</p>");
    await post(alice.id, "direct", "<p>psst</p>");

    const outbox = await get("/users/alice/outbox");
    expect(outbox.body.totalItems).toBe(2);
    const first = String(outbox.body.first);
    const items = (await get(new URL(first).pathname + new URL(first).search)).body.orderedItems as Json[];
    expect(items.map((item) => item.type)).toEqual(["Create", "Create"]);
    const [unlisted = {}, pub = {}] = items;
    const followers = "https://kith.test/users/alice/followers";
    expect(pub).toMatchObject({ id: `https://kith.test/users/alice/statuses/${open}/activity`, actor: "https://kith.test/users/alice" });
    // The public collection by its full IRI, as Mastodon writes it and as a delivered activity has it.
    const everyone = "https://www.w3.org/ns/activitystreams#Public";
    expect((pub.object as Json).to).toBe(everyone);
    expect((pub.object as Json).cc).toBe(followers);
    expect((unlisted.object as Json).to).toBe(followers);
    expect((unlisted.object as Json).cc).toBe(everyone);

    const note = await get(`/users/alice/statuses/${open}`);
    expect(note.status).toBe(200);
    expect(note.body).toMatchObject({
      id: `https://kith.test/users/alice/statuses/${open}`,
      type: "Note",
      attributedTo: "https://kith.test/users/alice",
      content: "<p>hello</p>",
      url: `https://kith.test/@alice/${open}`,
    });
    expect((await get(`/users/alice/statuses/${quiet}`)).status).toBe(200);
    expect((await get(`/users/alice/statuses/${secret}`)).status).toBe(404);
    expect((await get("/users/alice/statuses/st_00000000000000000000000000")).status).toBe(404);
    expect((await get(`/users/bob/statuses/${open}`)).status).toBe(404);
  });

  it("lists pinned public posts in the featured collection", async () => {
    const alice = (await kith.createUser("alice")).account;
    const pinned = await post(alice.id, "public", "<p>pinned</p>");
    await post(alice.id, "public", "<p>not pinned</p>");
    await kith.storage.db
      .insertInto("status_pins")
      .values({ id: kith.ids.next("pin"), account_id: alice.id, status_id: pinned, created_at: kith.clock.now().toISOString() })
      .execute();
    const featured = await get("/users/alice/collections/featured");
    expect(featured.status).toBe(200);
    expect(featured.body.totalItems).toBe(1);
    const items = featured.body.orderedItems as Json | Json[];
    const list = Array.isArray(items) ? items : [items];
    expect(list.map((item) => item.id)).toEqual([`https://kith.test/users/alice/statuses/${pinned}`]);
  });
});

describeOnEngines("key pairs across restarts", (engine) => {
  let database: EngineDatabase;
  beforeEach(async () => {
    database = await engine.database();
  });
  afterEach(() => database.drop());

  it("signs with the same keys after a restart on the same database", async () => {
    const open = () => createKith({ storage: database.open(), config: { origin: "https://kith.test", passwordHashCost: 1024 } });
    const first = await open();
    const before = await (await first.federation.load()).keys.keysOf("instance");
    const exported = await Promise.all(before.map((key) => crypto.subtle.exportKey("jwk", key.publicKey)));
    await first.close();
    const second = await open();
    const after = await (await second.federation.load()).keys.keysOf("instance");
    expect(await Promise.all(after.map((key) => crypto.subtle.exportKey("jwk", key.publicKey)))).toEqual(exported);
    expect(after.map((key) => key.algorithm)).toEqual(["RSASSA-PKCS1-v1_5", "Ed25519"]);
    await second.close();
  });
});
