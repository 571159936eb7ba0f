/**
 * masto.js driving the posts API over real HTTP, on both engines: a post
 * with a mention, a hashtag and a poll; edit, history, source and context;
 * favourite, boost, bookmark, pin and their undo; who boosted and who
 * favourited; several posts at once; a multiple-choice poll that ends; the
 * pin cap; Kith's highlights and subscriptions to a post; delete for redraft.
 */
import type { TestUser } from "@kith/core/testing";
import type { mastodon } from "masto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js posts", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("alice");
    bob = await compat.kith.createUser("bob");
  });
  afterAll(() => compat?.close());

  it("posts with a mention, a hashtag and a poll, and bob votes", async () => {
    const client = compat.client(alice);
    const status = await client.v1.statuses.create(
      { status: "Hello @bob, what do you drink? #Morning", poll: { options: ["Tea", "Coffee"], expiresIn: 3600 }, visibility: "public" },
      { requestInit: { headers: { "Idempotency-Key": "masto-1" } } },
    );
    expect(status.mentions.map((m) => m.acct)).toEqual(["bob"]);
    expect(status.tags.map((t) => t.name)).toEqual(["morning"]);
    expect(status.content).toContain('class="u-url mention"');
    expect(status.poll?.options.map((o) => o.title)).toEqual(["Tea", "Coffee"]);
    const again = await client.v1.statuses.create(
      { status: "Hello @bob, what do you drink? #Morning" },
      { requestInit: { headers: { "Idempotency-Key": "masto-1" } } },
    );
    expect(again.id).toBe(status.id);

    const poll = await compat
      .client(bob)
      .v1.polls.$select(status.poll?.id ?? "")
      .votes.create({ choices: [1] });
    expect(poll.ownVotes).toEqual([1]);
    expect(poll.votesCount).toBe(1);
    const fetched = await compat
      .client(bob)
      .v1.polls.$select(status.poll?.id ?? "")
      .fetch();
    expect(fetched.voted).toBe(true);
  });

  it("edits, reads history, source and context", async () => {
    const client = compat.client(alice);
    const root = await client.v1.statuses.create({ status: "first version" });
    const edited = await client.v1.statuses.$select(root.id).update({ status: "second version", spoilerText: "cw" });
    expect(edited.editedAt).not.toBeNull();
    const history = await client.v1.statuses.$select(root.id).history.list();
    expect(history).toHaveLength(2);
    const source = await client.v1.statuses.$select(root.id).source.fetch();
    expect(source.text).toBe("second version");
    const reply = await compat.client(bob).v1.statuses.create({ status: "@alice a reply", inReplyToId: root.id });
    const context = await compat.client().v1.statuses.$select(root.id).context.fetch();
    expect(context.descendants.map((s) => s.id)).toEqual([reply.id]);
    const fromReply = await compat.client(bob).v1.statuses.$select(reply.id).context.fetch();
    expect(fromReply.ancestors.map((s) => s.id)).toEqual([root.id]);
  });

  it("favourites, boosts, bookmarks, pins and deletes", async () => {
    const status = await compat.client(alice).v1.statuses.create({ status: "react to me" });
    const bobClient = compat.client(bob);
    const favourited = await bobClient.v1.statuses.$select(status.id).favourite();
    expect(favourited.favourited).toBe(true);
    expect(favourited.favouritesCount).toBe(1);
    const boost = await bobClient.v1.statuses.$select(status.id).reblog();
    expect(boost.reblog?.id).toBe(status.id);
    const bookmarked = await bobClient.v1.statuses.$select(status.id).bookmark();
    expect(bookmarked.bookmarked).toBe(true);
    const bookmarks = await bobClient.v1.bookmarks.list();
    expect(bookmarks.map((s) => s.id)).toContain(status.id);
    const favourites = await bobClient.v1.favourites.list();
    expect(favourites.map((s) => s.id)).toContain(status.id);
    const by = await compat.client().v1.statuses.$select(status.id).favouritedBy.list();
    expect(by.map((a) => a.id)).toEqual([bob.account.id]);
    const pinned = await compat.client(alice).v1.statuses.$select(status.id).pin();
    expect(pinned.pinned).toBe(true);
    const profile = await compat.client().v1.accounts.$select(alice.account.id).statuses.list({ pinned: true });
    expect(profile.map((s) => s.id)).toEqual([status.id]);
    const deleted = await compat.client(alice).v1.statuses.$select(status.id).remove();
    expect(deleted.text).toBe("react to me");
    await expect(compat.client().v1.statuses.$select(status.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describeOnEngines("masto.js posts: undo, lists of reactors, polls, pins, highlights", (engine) => {
  let compat: CompatServer;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    alice = await compat.kith.createUser("mastoundoalice");
    bob = await compat.kith.createUser("mastoundobob");
    carol = await compat.kith.createUser("mastoundocarol");
  });
  afterAll(() => compat?.close());

  /** Kith's own post actions, which masto.js does not know: plain fetch with the user's token. */
  const kithAction = (user: TestUser, id: string, action: string): Promise<Response> =>
    fetch(new URL(`/api/v1/statuses/${id}/${action}`, compat.url), { method: "POST", headers: { authorization: `Bearer ${user.token}` } });

  it("undoes favourites, boosts and bookmarks; lists who boosted and who favourited; fetches several posts", async () => {
    const status = await compat.client(alice).v1.statuses.create({ status: "undo me", visibility: "public" });
    for (const user of [bob, carol]) {
      await compat.client(user).v1.statuses.$select(status.id).reblog();
      await compat.client(user).v1.statuses.$select(status.id).favourite();
    }
    const rebloggedBy = await compat.client().v1.statuses.$select(status.id).rebloggedBy.list();
    expect(rebloggedBy.map((a) => a.id).sort()).toEqual([bob.account.id, carol.account.id].sort());
    // masto.js declares no parameters here; Mastodon (and Kith) page it like any list of accounts.
    const onePerPage = { limit: 1 } as unknown as undefined;
    const paginator = compat.client().v1.statuses.$select(status.id).favouritedBy.list(onePerPage).values();
    const pageIds = (page: IteratorResult<mastodon.v1.Account[]>): string[] => (page.done ? [] : page.value.map((a) => a.id));
    const pages = [pageIds(await paginator.next()), pageIds(await paginator.next())];
    expect(pages.map((page) => page.length)).toEqual([1, 1]);
    expect(pages.flat().sort()).toEqual([bob.account.id, carol.account.id].sort());

    const bobClient = compat.client(bob);
    await bobClient.v1.statuses.$select(status.id).bookmark();
    const unfavourited = await bobClient.v1.statuses.$select(status.id).unfavourite();
    expect(unfavourited).toMatchObject({ favourited: false, favouritesCount: 1 });
    const unreblogged = await bobClient.v1.statuses.$select(status.id).unreblog();
    expect(unreblogged).toMatchObject({ id: status.id, reblogged: false, reblogsCount: 1 });
    const unbookmarked = await bobClient.v1.statuses.$select(status.id).unbookmark();
    expect(unbookmarked.bookmarked).toBe(false);
    expect(await bobClient.v1.bookmarks.list()).toEqual([]);
    expect((await compat.client().v1.statuses.$select(status.id).rebloggedBy.list()).map((a) => a.id)).toEqual([carol.account.id]);

    const muted = await compat.client(alice).v1.statuses.$select(status.id).mute();
    expect(muted.muted).toBe(true);
    expect((await compat.client(alice).v1.statuses.$select(status.id).unmute()).muted).toBe(false);

    const secret = await compat.client(alice).v1.statuses.create({ status: "for followers", visibility: "private" });
    const several = await compat.client().v1.statuses.fetch({ id: [status.id, secret.id] });
    expect(several.map((s) => s.id)).toEqual([status.id]);
  });

  it("votes on a multiple-choice poll, refuses a second vote, and shows results once it ends", async () => {
    const status = await compat.client(alice).v1.statuses.create({
      status: "Pick any",
      poll: { options: ["Red", "Green", "Blue"], expiresIn: 300, multiple: true },
    });
    const pollId = status.poll?.id ?? "";
    const voted = await compat
      .client(bob)
      .v1.polls.$select(pollId)
      .votes.create({ choices: [0, 2] });
    expect(voted).toMatchObject({ multiple: true, votesCount: 2, votersCount: 1, ownVotes: [0, 2], voted: true });
    await expect(
      compat
        .client(bob)
        .v1.polls.$select(pollId)
        .votes.create({ choices: [1] }),
    ).rejects.toMatchObject({ statusCode: 422 });
    await expect(
      compat
        .client(alice)
        .v1.polls.$select(pollId)
        .votes.create({ choices: [1] }),
    ).rejects.toMatchObject({ statusCode: 422 });
    compat.kith.clock.advance(301_000);
    const ended = await compat.client().v1.polls.$select(pollId).fetch();
    expect(ended.expired).toBe(true);
    expect(ended.options.map((o) => o.votesCount)).toEqual([1, 0, 1]);
    await expect(
      compat
        .client(carol)
        .v1.polls.$select(pollId)
        .votes.create({ choices: [1] }),
    ).rejects.toMatchObject({ statusCode: 422 });
  });

  it("pins up to the admin's maximum, then 422; unpins", async () => {
    await compat.kith.services.settings.update({ maxPinnedPosts: 1 });
    const client = compat.client(carol);
    const first = await client.v1.statuses.create({ status: "pin one" });
    const second = await client.v1.statuses.create({ status: "pin two" });
    expect((await client.v1.statuses.$select(first.id).pin()).pinned).toBe(true);
    await expect(client.v1.statuses.$select(second.id).pin()).rejects.toMatchObject({ statusCode: 422 });
    expect((await client.v1.statuses.$select(first.id).unpin()).pinned).toBe(false);
    expect((await client.v1.statuses.$select(second.id).pin()).pinned).toBe(true);
    expect((await client.v1.accounts.$select(carol.account.id).statuses.list({ pinned: true })).map((s) => s.id)).toEqual([second.id]);
  });

  it("highlights a reply under its thread's root, and notifies subscribers of new replies", async () => {
    const root = await compat.client(alice).v1.statuses.create({ status: "a thread" });
    expect((await kithAction(carol, root.id, "subscribe")).status).toBe(200);
    const reply = await compat.client(bob).v1.statuses.create({ status: "@mastoundoalice a good reply", inReplyToId: root.id });
    const notifications = await compat.client(carol).v1.notifications.list({ types: ["status"] });
    expect(notifications.map((n) => n.status?.id)).toContain(reply.id);

    expect((await kithAction(bob, reply.id, "highlight")).status).toBe(403);
    expect((await kithAction(alice, reply.id, "highlight")).status).toBe(200);
    const context = (await (await fetch(new URL(`/api/v1/statuses/${root.id}/context`, compat.url))).json()) as {
      highlights: { id: string }[];
    };
    expect(context.highlights.map((s) => s.id)).toEqual([reply.id]);
    // masto.js reads the context as Mastodon's entity; the extra key does not disturb it.
    const viaMasto = await compat.client().v1.statuses.$select(root.id).context.fetch();
    expect(viaMasto.descendants.map((s) => s.id)).toEqual([reply.id]);
    expect((await kithAction(alice, reply.id, "unhighlight")).status).toBe(200);
    expect((await kithAction(carol, root.id, "unsubscribe")).status).toBe(200);
  });
});
