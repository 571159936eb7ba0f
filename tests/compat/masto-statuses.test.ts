/**
 * masto.js driving the posts API over real HTTP, on both engines: a post
 * with a mention, a hashtag and a poll; edit, history, source and context;
 * favourite, boost, bookmark, pin; a vote; delete for redraft.
 */
import type { TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CompatServer, describeOnEngines, startCompatServer } from "../support/compat-server.js";

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
