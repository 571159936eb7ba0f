/**
 * masto.js driving profiles and relationships over real HTTP, on both
 * engines: get, lookup, an account's posts with their filters, followers and
 * following, relationships, familiar followers, update_credentials; follows
 * and follow requests; blocks; mutes with a duration and notifications;
 * Mastodon's domain_blocks and the spec's user-domain-block over the same rows.
 */
import type { TestUser } from "@kith/core/testing";
import type { mastodon } from "masto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { remoteAccount, remoteFollows } from "../api/relationships-support.js";
import { post } from "../api/timelines-fixtures.js";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js accounts and relationships", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("mastoacctalice");
    bob = await compat.kith.createUser("mastoacctbob");
    carol = await compat.kith.createUser("mastoacctcarol");
  });
  afterAll(() => compat?.close());

  /** The spec's own endpoints, which masto.js does not know: plain fetch with the user's token. */
  const kithApi = (user: TestUser, method: string, path: string): Promise<Response> =>
    fetch(new URL(path, compat.url), { method, headers: { authorization: `Bearer ${user.token}` } });

  it("edits a profile with update_credentials and reads it back by id and by lookup", async () => {
    const updated = await compat.client(alice).v1.accounts.updateCredentials({
      displayName: "Alice Liddell",
      note: "Down the #rabbit hole",
      fieldsAttributes: [{ name: "Home", value: "https://wonder.example" }],
      bot: false,
      discoverable: true,
    });
    expect(updated).toMatchObject({ displayName: "Alice Liddell", discoverable: true, bot: false, locked: false });
    expect(updated.source.note).toBe("Down the #rabbit hole");
    expect(updated.fields).toEqual([{ name: "Home", value: expect.stringContaining("wonder.example"), verifiedAt: null }]);

    const guest = compat.client();
    const byId = await guest.v1.accounts.$select(alice.account.id).fetch();
    expect(byId).toMatchObject({ id: alice.account.id, username: "mastoacctalice", acct: "mastoacctalice", displayName: "Alice Liddell" });
    expect(byId.note).toContain("rabbit");
    const looked = await guest.v1.accounts.lookup({ acct: "mastoacctalice" });
    expect(looked.id).toBe(alice.account.id);
    await expect(guest.v1.accounts.lookup({ acct: "nobody-here" })).rejects.toMatchObject({ statusCode: 404 });
    await expect(guest.v1.accounts.updateCredentials({ displayName: "x" })).rejects.toMatchObject({ statusCode: 401 });
  });

  it("lists an account's posts with pinned, exclude_replies, exclude_reblogs, only_media and tagged", async () => {
    const client = compat.client(bob);
    const alicePost = await compat.client(alice).v1.statuses.create({ status: "boost me" });
    const tagged = await client.v1.statuses.create({ status: "about #gardening" });
    const plain = await client.v1.statuses.create({ status: "just words" });
    // A reply to someone else (Mastodon keeps self-replies, threads, under exclude_replies).
    const reply = await client.v1.statuses.create({ status: "@mastoacctalice agreed", inReplyToId: alicePost.id });
    const boost = await client.v1.statuses.$select(alicePost.id).reblog();
    await client.v1.statuses.$select(plain.id).pin();

    const statuses = compat.client().v1.accounts.$select(bob.account.id).statuses;
    expect((await statuses.list()).map((s) => s.id)).toEqual([boost.id, reply.id, plain.id, tagged.id]);
    expect((await statuses.list({ excludeReplies: true })).map((s) => s.id)).toEqual([boost.id, plain.id, tagged.id]);
    expect((await statuses.list({ excludeReblogs: true })).map((s) => s.id)).toEqual([reply.id, plain.id, tagged.id]);
    expect((await statuses.list({ tagged: "gardening" })).map((s) => s.id)).toEqual([tagged.id]);
    expect((await statuses.list({ pinned: true })).map((s) => s.id)).toEqual([plain.id]);
    expect(await statuses.list({ onlyMedia: true })).toEqual([]);
    const paged = compat.client().v1.accounts.$select(bob.account.id).statuses.list({ limit: 2 }).values();
    const pageIds = (page: IteratorResult<mastodon.v1.Status[]>): string[] => (page.done ? [] : page.value.map((s) => s.id));
    expect(pageIds(await paged.next())).toEqual([boost.id, reply.id]);
    expect(pageIds(await paged.next())).toEqual([plain.id, tagged.id]);
  });

  it("follows, with notify and reblogs; followers, following, relationships and familiar followers", async () => {
    const relationship = await compat.client(carol).v1.accounts.$select(bob.account.id).follow({ notify: true, reblogs: false });
    expect(relationship).toMatchObject({ following: true, notifying: true, showingReblogs: false, requested: false });
    await compat.client(alice).v1.accounts.$select(carol.account.id).follow();
    await compat.client(alice).v1.accounts.$select(bob.account.id).follow();

    const followers = await compat.client().v1.accounts.$select(bob.account.id).followers.list();
    expect(followers.map((a) => a.id).sort()).toEqual([alice.account.id, carol.account.id].sort());
    const following = await compat.client().v1.accounts.$select(alice.account.id).following.list();
    expect(following.map((a) => a.id).sort()).toEqual([bob.account.id, carol.account.id].sort());

    const [withBob, withCarol] = await compat.client(alice).v1.accounts.relationships.fetch({ id: [bob.account.id, carol.account.id] });
    expect(withBob).toMatchObject({ id: bob.account.id, following: true, followedBy: false, blocking: false, muting: false });
    expect(withCarol).toMatchObject({ id: carol.account.id, following: true, domainBlocking: false, note: "" });
    // masto.js types this parameter as a bare array, which it would send as `0=<id>`; Mastodon reads `id[]`.
    const familiar = await compat
      .client(alice)
      .v1.accounts.familiarFollowers.fetch({ id: [bob.account.id] } as unknown as readonly string[]);
    expect(familiar).toEqual([{ id: bob.account.id, accounts: [expect.objectContaining({ id: carol.account.id })] }]);

    // notify: carol hears of bob's new posts; reblogs off: his boosts stay out of her home.
    const news = await compat.client(bob).v1.statuses.create({ status: "news for my subscribers" });
    const told = await compat.client(carol).v1.notifications.list({ types: ["status"] });
    expect(told.map((n) => [n.account.id, n.status?.id])).toEqual([[bob.account.id, news.id]]);
    const worthABoost = await compat.client(alice).v1.statuses.create({ status: "worth a boost" });
    const boosted = await compat.client(bob).v1.statuses.$select(worthABoost.id).reblog();
    expect((await compat.client(carol).v1.timelines.home.list()).map((s) => s.id)).not.toContain(boosted.id);

    const unfollowed = await compat.client(carol).v1.accounts.$select(bob.account.id).unfollow();
    expect(unfollowed.following).toBe(false);
    await compat.client(bob).v1.accounts.$select(alice.account.id).removeFromFollowers();
    const afterRemoval = await compat.client(alice).v1.accounts.relationships.fetch({ id: [bob.account.id] });
    expect(afterRemoval[0]?.following).toBe(false);
  });

  it("asks a locked account, which authorizes one request and rejects another", async () => {
    const owner = await compat.kith.createUser("mastoacctlocked");
    const fan = await compat.kith.createUser("mastoacctfan");
    await compat.client(owner).v1.accounts.updateCredentials({ locked: true });
    expect((await compat.client(fan).v1.accounts.$select(owner.account.id).follow()).requested).toBe(true);
    expect((await compat.client(carol).v1.accounts.$select(owner.account.id).follow()).requested).toBe(true);

    const requests = await compat.client(owner).v1.followRequests.list();
    expect(requests.map((a) => a.id).sort()).toEqual([carol.account.id, fan.account.id].sort());
    const authorized = await compat.client(owner).v1.followRequests.$select(fan.account.id).authorize();
    expect(authorized).toMatchObject({ id: fan.account.id, followedBy: true, requestedBy: false });
    const rejected = await compat.client(owner).v1.followRequests.$select(carol.account.id).reject();
    expect(rejected).toMatchObject({ followedBy: false, requestedBy: false });
    expect(await compat.client(owner).v1.followRequests.list()).toEqual([]);
    await expect(compat.client(owner).v1.followRequests.$select(carol.account.id).authorize()).rejects.toMatchObject({ statusCode: 404 });
  });

  it("blocks and unblocks; the block is listed and hides both ways", async () => {
    const troll = await compat.kith.createUser("mastoaccttroll");
    const trollPost = await compat.client(troll).v1.statuses.create({ status: "trolling" });
    const blocked = await compat.client(alice).v1.accounts.$select(troll.account.id).block();
    expect(blocked).toMatchObject({ blocking: true, following: false });
    expect((await compat.client(alice).v1.blocks.list()).map((a) => a.id)).toEqual([troll.account.id]);
    await expect(compat.client(alice).v1.statuses.$select(trollPost.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    await expect(compat.client(troll).v1.accounts.$select(alice.account.id).follow()).rejects.toMatchObject({ statusCode: 403 });
    expect((await compat.client(alice).v1.accounts.$select(troll.account.id).unblock()).blocking).toBe(false);
    expect(await compat.client(alice).v1.blocks.list()).toEqual([]);
  });

  it("mutes for a while with notifications kept, then for ever without them", async () => {
    const noisy = await compat.kith.createUser("mastoacctnoisy");
    const client = compat.client(alice);
    const muted = await client.v1.accounts.$select(noisy.account.id).mute({ duration: 3600, notifications: false });
    expect(muted).toMatchObject({ muting: true, mutingNotifications: false });
    await compat.client(noisy).v1.statuses.create({ status: "@mastoacctalice hear me" });
    expect((await client.v1.notifications.list({ types: ["mention"] })).map((n) => n.account.id)).toContain(noisy.account.id);
    const mutes = await client.v1.mutes.list();
    expect(mutes.map((a) => a.id)).toEqual([noisy.account.id]);
    expect((mutes[0] as { muteExpiresAt?: string | null }).muteExpiresAt).toEqual(expect.any(String));

    const silenced = await client.v1.accounts.$select(noisy.account.id).mute({ notifications: true });
    expect(silenced).toMatchObject({ muting: true, mutingNotifications: true });
    expect((await client.v1.notifications.list({ types: ["mention"] })).map((n) => n.account.id)).not.toContain(noisy.account.id);
    expect((await client.v1.accounts.$select(noisy.account.id).unmute()).muting).toBe(false);
  });

  it("blocks a domain through domain_blocks and user-domain-block alike", async () => {
    const domain = "far.example";
    const fan = await remoteAccount(compat.kith, "farfan", domain);
    const stranger = await remoteAccount(compat.kith, "farstranger", domain);
    await remoteFollows(compat.kith, fan, alice.account.id);
    const remoteStatus = await post(compat.kith, stranger, { local: false });
    const client = compat.client(alice);
    expect((await client.v1.timelines.public.list({ remote: true })).map((s) => s.id)).toContain(remoteStatus);

    await client.v1.domainBlocks.create({ domain });
    expect(await client.v1.domainBlocks.list()).toEqual([domain]);
    const viaSpec = await kithApi(alice, "GET", "/api/v1/user-domain-block");
    expect(await viaSpec.json()).toEqual([domain]);
    expect((await client.v1.timelines.public.list({ remote: true })).map((s) => s.id)).not.toContain(remoteStatus);
    expect((await client.v1.accounts.relationships.fetch({ id: [fan] }))[0]).toMatchObject({ followedBy: false, domainBlocking: true });
    await expect(client.v1.accounts.$select(stranger).follow()).rejects.toMatchObject({ statusCode: 403 });

    expect((await kithApi(alice, "DELETE", `/api/v1/user-domain-block/${domain}`)).status).toBe(200);
    expect(await client.v1.domainBlocks.list()).toEqual([]);
    expect((await kithApi(alice, "DELETE", `/api/v1/user-domain-block/${domain}`)).status).toBe(409);
    expect((await kithApi(alice, "POST", `/api/v1/user-domain-block/${domain}`)).status).toBe(200);
    await client.v1.domainBlocks.remove({ domain });
    expect(await client.v1.domainBlocks.list()).toEqual([]);
  });
});
