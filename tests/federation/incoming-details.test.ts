/**
 * What other servers send that Kith used to drop, delivered over HTTP by a
 * loopback server to a Kith served on its own port, which fetches the
 * senders' documents back over HTTP: custom emoji tags of posts and
 * profiles, quotes (FEP-044f `quote`, `quoteUrl`, Misskey's
 * `_misskey_quote`), an attachment's blurhash, Lemmy's Page, an Event, a
 * group's Announce of a member's Create (FEP-1b12), emoji reactions
 * (`EmojiReact` and its Undo; Misskey's Like with a reaction is a
 * favourite), a report (`Flag`), and an activity of a type Kith does not
 * handle. Each is shown in the client API, or kept, as Mastodon would.
 */
import { sql } from "kysely";
import { type RemoteServer, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { PUBLIC, federationSettled } from "../support/remote-activities.js";
import { type ServedKith, serveKith } from "../support/served-kith.js";

const CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    toot: "http://joinmastodon.org/ns#",
    Emoji: "toot:Emoji",
    blurhash: "toot:blurhash",
    misskey: "https://misskey-hub.net/ns#",
    _misskey_quote: "misskey:_misskey_quote",
    _misskey_reaction: "misskey:_misskey_reaction",
    quoteUrl: "as:quoteUrl",
    quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" },
    litepub: "http://litepub.social/ns#",
    EmojiReact: "litepub:EmojiReact",
  },
];

interface Status {
  id: string;
  content: string;
  url: string | null;
  emojis: { shortcode: string; url: string; static_url: string }[];
  media_attachments: { blurhash: string | null }[];
  quote: { state: string; quoted_status: { id: string } | null } | null;
  reactions: { name: string; count: number; me: boolean; url?: string }[];
  favourites_count: number;
  reblog: Status | null;
  account: { id: string; acct: string; display_name: string; emojis: { shortcode: string; url: string }[] };
}

describeOnEngines("details of what other servers send", { timeout: 60_000 }, (engine) => {
  let remote: RemoteServer;
  let served: ServedKith;
  let alice: TestUser;
  let serial = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "eve", "community"]);
    served = await serveKith(engine);
    alice = await served.kith.createUser("alice");
    // mallory's name has a custom emoji; community is a Lemmy-style group.
    const actorDoc = async (name: string) => (await (await fetch(`${remote.origin}/users/${name}`)).json()) as Record<string, unknown>;
    const mallory = await actorDoc("mallory");
    remote.serve("/users/mallory", {
      ...mallory,
      "@context": [...(mallory["@context"] as unknown[]), { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" }],
      name: "Mallory :verified:",
      tag: [emojiTag("verified")],
    });
    const community = await actorDoc("community");
    remote.serve("/users/community", { ...community, type: "Group" });
  }, 60_000);
  afterAll(async () => {
    await served?.close();
    await remote?.close();
  });

  const actor = (name: string) => remote.actors[name] ?? expect.unreachable(name);
  const kith = () => served.kith;

  function emojiTag(shortcode: string): Record<string, unknown> {
    return {
      type: "Emoji",
      id: `${remote.origin}/emojis/${shortcode}`,
      name: `:${shortcode}:`,
      updated: "2026-01-01T00:00:00Z",
      icon: { type: "Image", mediaType: "image/png", url: `${remote.origin}/files/${shortcode}.png` },
    };
  }

  /** POSTs the activity to Kith's shared inbox over HTTP, signed by its actor; the answer must be 202. */
  async function deliver(activity: Record<string, unknown>, signer = String(activity.actor).split("/").pop() ?? ""): Promise<void> {
    const request = await remote.signedPost(`${served.origin}/inbox`, { "@context": CONTEXT, ...activity }, actor(signer));
    const response = await fetch(request);
    expect(response.status, await response.text()).toBe(202);
  }

  function createOf(object: Record<string, unknown>, by = "mallory"): Record<string, unknown> {
    return { id: `${object.id}/activity`, type: "Create", actor: actor(by).id.href, to: [PUBLIC], object };
  }

  function noteOf(extra: Record<string, unknown> = {}, by = "mallory"): Record<string, unknown> {
    return {
      id: `${actor(by).id.href}/statuses/${++serial}`,
      type: "Note",
      attributedTo: actor(by).id.href,
      to: [PUBLIC],
      content: "<p>note</p>",
      ...extra,
    };
  }

  /** The post stored for `uri`, once stored, as alice's client sees it. */
  async function statusAt(uri: unknown): Promise<Status> {
    const row = await eventually(async () => {
      const found = await kith().storage.db.selectFrom("statuses").select("id").where("uri", "=", String(uri)).executeTakeFirst();
      expect(found).toBeDefined();
      return found;
    });
    return statusById(row?.id ?? "");
  }

  async function statusById(id: string): Promise<Status> {
    const response = await kith().request("GET", `/api/v1/statuses/${id}`, { token: alice.token });
    expect(response.status).toBe(200);
    return (await response.json()) as Status;
  }

  async function alicePost(text: string): Promise<{ id: string; uri: string }> {
    const response = await kith().request("POST", "/api/v1/statuses", { token: alice.token, json: { status: text } });
    return (await response.json()) as { id: string; uri: string };
  }

  it("keeps the custom emojis of a post and of its author's name, and an attachment's blurhash", async () => {
    const note = noteOf({
      content: "<p>hello :blobfox: and :unknown:</p>",
      tag: [emojiTag("blobfox")],
      attachment: [
        {
          type: "Document",
          mediaType: "image/png",
          url: `${remote.origin}/files/photo.png`,
          name: "a photo",
          blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
        },
      ],
    });
    await deliver(createOf(note));
    const status = await statusAt(note.id);
    expect(status.emojis).toEqual([
      {
        shortcode: "blobfox",
        url: `${remote.origin}/files/blobfox.png`,
        static_url: `${remote.origin}/files/blobfox.png`,
        visible_in_picker: true,
        category: null,
      },
    ]);
    expect(status.media_attachments.map((media) => media.blurhash)).toEqual(["LEHV6nWB2yk8pyo0adR*.7kCMdnj"]);
    expect(status.account.display_name).toBe("Mallory :verified:");
    expect(status.account.emojis.map((emoji) => [emoji.shortcode, emoji.url])).toEqual([
      ["verified", `${remote.origin}/files/verified.png`],
    ]);
  });

  it("keeps what a post quotes in each way servers say it, and shows the quoted post when it is known", async () => {
    const local = await alicePost("quote me");
    const fep = noteOf({ content: "<p>FEP-044f</p>", quote: local.uri });
    await deliver(createOf(fep));
    const quoting = await statusAt(fep.id);
    // A quote of a local status waits for its author's authorization (a QuoteRequest answered; the Note names no stamp).
    expect(quoting.quote).toEqual({ state: "pending", quoted_status: null });

    const misskey = noteOf({ content: "<p>Misskey</p>", _misskey_quote: fep.id });
    await deliver(createOf(misskey));
    const second = await statusAt(misskey.id);
    expect(second.quote).toMatchObject({ state: "accepted", quoted_status: { id: quoting.id } });
    // A quote inside a quote is named, not rendered again.
    const nested = (second.quote?.quoted_status ?? null) as Status | null;
    expect(nested?.quote).toEqual({ state: "pending", quoted_status_id: null });
    const third = noteOf({ content: "<p>Third</p>", quote: misskey.id });
    await deliver(createOf(third));
    const deeper = ((await statusAt(third.id)).quote?.quoted_status ?? null) as Status | null;
    expect(deeper?.quote).toEqual({ state: "accepted", quoted_status_id: quoting.id });

    const unknown = noteOf({ content: "<p>quoteUrl</p>", quoteUrl: `${remote.origin}/notes/never-seen` });
    await deliver(createOf(unknown));
    expect((await statusAt(unknown.id)).quote).toEqual({ state: "accepted", quoted_status: null });
    const row = await kith()
      .storage.db.selectFrom("statuses")
      .select(["quote_uri", "quote_id"])
      .where("uri", "=", String(unknown.id))
      .executeTakeFirst();
    expect(row).toEqual({ quote_uri: `${remote.origin}/notes/never-seen`, quote_id: null });
  });

  it("shows a Page (Lemmy) as a post with its title and link, and an Event with its time and place kept", async () => {
    const page = {
      id: `${remote.origin}/post/${++serial}`,
      type: "Page",
      attributedTo: actor("mallory").id.href,
      to: [PUBLIC],
      name: "A <title> & more",
      content: "<p>The body</p>",
      mediaType: "text/html",
      attachment: [{ type: "Link", href: "https://example.com/article" }],
    };
    await deliver(createOf(page));
    const shown = await statusAt(page.id);
    expect(shown.content).toContain("A &lt;title&gt; &amp; more");
    expect(shown.content).toContain("<p>The body</p>");
    expect(shown.content).toContain('href="https://example.com/article"');

    const event = {
      id: `${remote.origin}/events/${++serial}`,
      type: "Event",
      attributedTo: actor("mallory").id.href,
      to: [PUBLIC],
      name: "Meetup",
      content: "<p>Come along</p>",
      startTime: "2026-06-01T18:00:00Z",
      endTime: "2026-06-01T20:00:00Z",
      location: { type: "Place", name: "Town hall" },
      url: `${remote.origin}/events/meetup`,
    };
    await deliver(createOf(event));
    const post = await statusAt(event.id);
    expect(post.content).toContain("Meetup");
    expect(post.content).toContain(`href="${remote.origin}/events/meetup"`);
    const kept = await kith().storage.db.selectFrom("remote_events").selectAll().where("status_id", "=", post.id).executeTakeFirst();
    expect(kept).toMatchObject({ name: "Meetup", location: "Town hall", url: `${remote.origin}/events/meetup` });
    expect(new Date(String(kept?.starts_at)).toISOString()).toBe("2026-06-01T18:00:00.000Z");
    expect(new Date(String(kept?.ends_at)).toISOString()).toBe("2026-06-01T20:00:00.000Z");
  });

  it("takes a group's Announce of a member's Create as the member's post, boosted by the group", async () => {
    const note = noteOf({ content: "<p>posted in a community</p>", audience: actor("community").id.href });
    const create = createOf(note);
    await deliver(
      {
        id: `${actor("community").id.href}/announces/${++serial}`,
        type: "Announce",
        actor: actor("community").id.href,
        to: [PUBLIC],
        object: { ...create, "@context": undefined },
      },
      "community",
    );
    const post = await statusAt(note.id);
    expect(post.account.acct).toBe(`mallory@${remote.host}`);
    const group = await eventually(async () => {
      const found = await kith()
        .storage.db.selectFrom("accounts")
        .select(["id", "actor_type"])
        .where("uri", "=", actor("community").id.href)
        .executeTakeFirst();
      expect(found).toBeDefined();
      return found;
    });
    expect(group?.actor_type).toBe("Group");
    const boosts = await eventually(async () => {
      const response = await kith().request("GET", `/api/v1/accounts/${group?.id}/statuses`, { token: alice.token });
      const list = (await response.json()) as Status[];
      expect(list).toHaveLength(1);
      return list;
    });
    expect(boosts[0]?.reblog?.id).toBe(post.id);
  });

  it("shows emoji reactions to a local post, Unicode and custom, until undone; a Misskey reaction is a favourite", async () => {
    const local = await alicePost("react to me");
    const fire = {
      id: `${actor("eve").id.href}/reactions/${++serial}`,
      type: "EmojiReact",
      actor: actor("eve").id.href,
      object: local.uri,
      content: "🔥",
    };
    await deliver(fire);
    // Reactions are listed in the order they came: the next one waits for this one (its sender is fetched first).
    await eventually(async () => expect((await statusById(local.id)).reactions).toHaveLength(1));
    const custom = {
      id: `${actor("mallory").id.href}/reactions/${++serial}`,
      type: "EmojiReact",
      actor: actor("mallory").id.href,
      object: local.uri,
      content: ":blobfox:",
      tag: [emojiTag("blobfox")],
    };
    await deliver(custom);
    await deliver({
      id: `${actor("mallory").id.href}/reactions/${++serial}`,
      type: "EmojiReact",
      actor: actor("mallory").id.href,
      object: local.uri,
      content: "not an emoji",
    });
    const reacted = await eventually(async () => {
      const status = await statusById(local.id);
      expect(status.reactions).toHaveLength(2);
      return status;
    });
    expect(reacted.reactions).toEqual([
      { name: "🔥", count: 1, me: false },
      { name: "blobfox", count: 1, me: false, url: `${remote.origin}/files/blobfox.png`, static_url: `${remote.origin}/files/blobfox.png` },
    ]);

    await deliver({ id: `${actor("eve").id.href}/undos/${++serial}`, type: "Undo", actor: actor("eve").id.href, object: fire });
    const undone = await eventually(async () => {
      const status = await statusById(local.id);
      expect(status.reactions).toHaveLength(1);
      return status;
    });
    expect(undone.reactions[0]?.name).toBe("blobfox");

    await deliver({
      id: `${actor("eve").id.href}/likes/${++serial}`,
      type: "Like",
      actor: actor("eve").id.href,
      object: local.uri,
      content: "👍",
      _misskey_reaction: "👍",
    });
    const liked = await eventually(async () => {
      const status = await statusById(local.id);
      expect(status.favourites_count).toBe(1);
      return status;
    });
    expect(liked.reactions).toHaveLength(1);
  });

  it("files a Flag as a report about the local account with the statuses it names, and passes over types it does not handle", async () => {
    const local = await alicePost("reported");
    const flagId = `${actor("mallory").id.href}/flags/${++serial}`;
    await deliver({
      id: flagId,
      type: "Flag",
      actor: actor("mallory").id.href,
      object: [`${served.origin}/users/alice`, local.uri, `${remote.origin}/users/eve`],
      content: "<p>This is <b>spam</b></p>",
    });
    // Filed as any report is, by the reports module: the sending actor is the reporter.
    const reports = await eventually(async () => {
      const { rows } = await sql<{ target_account_id: string; comment: string; status_ids: string }>`
        select r.target_account_id, c.comment, c.status_ids from reports r join report_comments c on c.report_id = r.id`.execute(
        kith().storage.db,
      );
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(reports[0]).toMatchObject({ target_account_id: alice.account.id, comment: "This is spam" });
    expect(JSON.parse(String(reports[0]?.status_ids))).toEqual([local.id]);

    await deliver({
      id: `${actor("mallory").id.href}/reads/${++serial}`,
      type: "Read",
      actor: actor("mallory").id.href,
      object: local.uri,
    });
    await federationSettled(kith());
    const failed = await kith().queue.counts("federation");
    expect(failed.failed + failed.dlq).toBe(0);
  });
});
