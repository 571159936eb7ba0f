/**
 * An error in the server's log means something went wrong: a Kith server
 * process receiving, over HTTPS from a loopback server, what other servers
 * send in normal operation (a first activity of an actor it does not know
 * yet, which the no-fetch rule of a request's pass hands to a worker; a
 * report; an emoji reaction; a Misskey reaction; an activity of a type it
 * does not act on; a Create or an Undo whose object, or a status whose tags
 * and attachments, come only as URLs, which the same rule hands to a worker)
 * handles each and logs none of them as an error.
 */
import { sql } from "kysely";
import { rmSync } from "node:fs";
import { type RemoteServer, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { accountWithToken, call, eventually } from "../support/federation-api.js";
import { type TestCa, type TestInstance, makeTestCa, startInstance } from "../support/federation-harness.js";
import { PUBLIC } from "../support/remote-activities.js";

const CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    misskey: "https://misskey-hub.net/ns#",
    _misskey_reaction: "misskey:_misskey_reaction",
    litepub: "http://litepub.social/ns#",
    EmojiReact: "litepub:EmojiReact",
  },
];

describeOnEngines("log levels of normal inbox traffic", { timeout: 120_000 }, (engine) => {
  let ca: TestCa;
  let server: TestInstance;
  let remote: RemoteServer;
  let token: string;
  let serial = 0;

  beforeAll(async () => {
    ca = makeTestCa();
    [server, remote] = await Promise.all([startInstance("logs", ca, {}, ["all"], engine.name), startRemoteServer(["mallory", "eve"])]);
    ({ token } = await accountWithToken(server, "alice"));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), remote?.close()]);
    if (ca) rmSync(ca.dir, { recursive: true, force: true });
  });

  const actor = (name: string) => remote.actors[name] ?? expect.unreachable(name);

  /** POSTs the activity to the server's shared inbox over HTTPS, signed by its actor; the answer must be 202. */
  async function deliver(activity: Record<string, unknown>): Promise<void> {
    const signer = actor(String(activity.actor).split("/").pop() ?? "");
    const signed = await remote.signedPost(`${server.origin}/inbox`, { "@context": CONTEXT, ...activity }, signer);
    const headers = Object.fromEntries(signed.headers);
    const body = await signed.text();
    // A server that sheds load answers 503 and asks to be tried again shortly, as a sending server would.
    let response = await server.request("POST", "/inbox", { headers, body });
    for (let attempt = 1; response.status === 503 && attempt < 10; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      response = await server.request("POST", "/inbox", { headers, body });
    }
    expect(response.status).toBe(202);
  }

  async function rows<T>(read: (storage: ReturnType<TestInstance["openStorage"]>) => Promise<T>): Promise<T> {
    const storage = server.openStorage();
    try {
      return await read(storage);
    } finally {
      await storage.close();
    }
  }

  /** The lines the server logged as errors (LogTape's `[ERR]` and `[FTL]`). */
  const errorLines = () =>
    server
      .output()
      .split("\n")
      .filter((line) => /\[(ERR|FTL)\]/.test(line));

  it("handles first contact, a report, reactions and an unknown type without an error in the log", async () => {
    const posted = await call(server, token, "POST", "/api/v1/statuses", { status: "hello", visibility: "public" });
    const local = posted.body as { id: string; uri: string };

    // mallory and eve are not known yet: their first activities go to a worker, which fetches them.
    const noteId = `${actor("mallory").id.href}/statuses/${++serial}`;
    await deliver({
      id: `${noteId}/activity`,
      type: "Create",
      actor: actor("mallory").id.href,
      to: [PUBLIC],
      object: { id: noteId, type: "Note", attributedTo: actor("mallory").id.href, to: [PUBLIC], content: "<p>first contact</p>" },
    });
    await deliver({
      id: `${actor("eve").id.href}/reactions/${++serial}`,
      type: "EmojiReact",
      actor: actor("eve").id.href,
      object: local.uri,
      content: "🎉",
    });
    await deliver({
      id: `${actor("mallory").id.href}/flags/${++serial}`,
      type: "Flag",
      actor: actor("mallory").id.href,
      object: [`${server.origin}/users/alice`, local.uri],
      content: "report",
    });
    await deliver({
      id: `${actor("eve").id.href}/likes/${++serial}`,
      type: "Like",
      actor: actor("eve").id.href,
      object: local.uri,
      content: "👍",
      _misskey_reaction: "👍",
    });
    await deliver({ id: `${actor("eve").id.href}/reads/${++serial}`, type: "Read", actor: actor("eve").id.href, object: local.uri });

    const done = await eventually(
      () =>
        rows(async (storage) => ({
          post: await storage.db.selectFrom("statuses").select("id").where("uri", "=", noteId).executeTakeFirst(),
          flags: (await sql<{ id: string }>`select id from reports`.execute(storage.db)).rows,
          reactions: await storage.db.selectFrom("status_reactions").select("name").execute(),
          favourites: await storage.db.selectFrom("favourites").select("id").execute(),
        })),
      (state) => state.post !== undefined && state.flags.length === 1 && state.reactions.length === 1 && state.favourites.length === 1,
    );
    expect(done.post).toBeDefined();
    expect(done.flags).toHaveLength(1);
    expect(done.reactions).toEqual([{ name: "🎉" }]);
    expect(done.favourites).toHaveLength(1);
    expect(errorLines()).toEqual([]);
  });

  it("hands an object, tags and attachments given only as URLs to a worker without an error in the log", async () => {
    const mallory = actor("mallory").id.href;
    const eve = actor("eve").id.href;
    const path = (url: string) => new URL(url).pathname;

    // A Create whose object is only its URL: its author's server has it.
    const byUrl = `${mallory}/statuses/${++serial}`;
    remote.serve(path(byUrl), {
      "@context": CONTEXT,
      id: byUrl,
      type: "Note",
      attributedTo: mallory,
      to: [PUBLIC],
      content: "<p>given by its URL</p>",
    });
    await deliver({ id: `${byUrl}/activity`, type: "Create", actor: mallory, to: [PUBLIC], object: byUrl });

    // A status whose custom emoji tag and attachment are only their URLs.
    const tagged = `${mallory}/statuses/${++serial}`;
    const emoji = `${mallory}/emojis/${serial}`;
    const document = `${mallory}/media/${serial}`;
    remote.serve(path(emoji), {
      "@context": [...CONTEXT, { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" }],
      id: emoji,
      type: "Emoji",
      name: ":fetched:",
      icon: { type: "Image", mediaType: "image/png", url: `${remote.origin}/files/fetched.png` },
    });
    remote.serve(path(document), {
      "@context": CONTEXT,
      id: document,
      type: "Document",
      mediaType: "image/png",
      url: `${remote.origin}/files/${serial}.png`,
      name: "a picture",
    });
    await deliver({
      id: `${tagged}/activity`,
      type: "Create",
      actor: mallory,
      to: [PUBLIC],
      object: {
        id: tagged,
        type: "Note",
        attributedTo: mallory,
        to: [PUBLIC],
        content: "<p>:fetched:</p>",
        tag: [emoji],
        attachment: [document],
      },
    });

    // An Undo of a Like whose object is only the Like's URL.
    const posted = await call(server, token, "POST", "/api/v1/statuses", { status: "to be liked", visibility: "public" });
    const local = posted.body as { id: string; uri: string };
    const like = `${eve}/likes/${++serial}`;
    remote.serve(path(like), { "@context": CONTEXT, id: like, type: "Like", actor: eve, object: local.uri });
    await deliver({ id: like, type: "Like", actor: eve, object: local.uri });
    const liked = await eventually(
      () => rows((storage) => storage.db.selectFrom("favourites").select("id").where("uri", "=", like).execute()),
      (found) => found.length === 1,
    );
    expect(liked).toHaveLength(1);
    await deliver({ id: `${like}/undo`, type: "Undo", actor: eve, object: like });

    const done = await eventually(
      () =>
        rows(async (storage) => ({
          byUrl: await storage.db.selectFrom("statuses").select("id").where("uri", "=", byUrl).executeTakeFirst(),
          tagged: await storage.db.selectFrom("statuses").select("id").where("uri", "=", tagged).executeTakeFirst(),
          emojis: await storage.db.selectFrom("custom_emojis").select("shortcode").where("shortcode", "=", "fetched").execute(),
          media: await storage.db
            .selectFrom("media_attachments")
            .innerJoin("statuses", "statuses.id", "media_attachments.status_id")
            .select("media_attachments.description")
            .where("statuses.uri", "=", tagged)
            .execute(),
          like: await storage.db.selectFrom("favourites").select("id").where("uri", "=", like).execute(),
        })),
      (state) =>
        state.byUrl !== undefined &&
        state.tagged !== undefined &&
        state.emojis.length === 1 &&
        state.media.length === 1 &&
        state.like.length === 0,
    );
    expect(done.byUrl).toBeDefined();
    expect(done.tagged).toBeDefined();
    expect(done.emojis).toEqual([{ shortcode: "fetched" }]);
    expect(done.media).toEqual([{ description: "a picture" }]);
    expect(done.like).toEqual([]);
    // The worker fetched them (the request's pass did not).
    const fetched = remote.fetched.map((request) => request.path);
    expect(fetched).toEqual(expect.arrayContaining([path(byUrl), path(emoji), path(document), path(like)]));
    expect(errorLines()).toEqual([]);
  });
});
