/**
 * What other servers get of a local status, over real HTTP: two Kith
 * instances and a recording ActivityPub server (a follower whose inbox keeps
 * what it is sent). A status fetched by its id is the object its Create
 * delivered (attachments with their details, hashtags, mentions, content
 * warning, language, poll, reply target); the Create and a boost's Announce
 * answer at their own ids; a status lists its replies; and the actor carries
 * its bio's hashtags, its images' media types, `featuredTags` and
 * `indexable`. Another Kith that only fetches a status by its URL keeps it
 * whole.
 */
import { type RemoteServer, type TestUser, preloadedContextLoader, startRemoteServer, vocab } from "@kith/core/testing";
// The tests package does not depend on Fedify itself: its signature checks are taken from the core package's.
import { verifyJsonLd, verifyObject } from "../../packages/core/node_modules/@fedify/fedify/dist/mod.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, eventually, startKithPair } from "../support/federation-pair.js";
import { makePng } from "../support/media-files.js";
import { giveGrants } from "../support/roles.js";

type Json = Record<string, unknown>;

const AP = "application/activity+json";
const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

async function api(side: PairedKith, method: string, path: string, token: string, json?: unknown): Promise<Json> {
  const response = await side.kith.request(method, path, { token, ...(json !== undefined && { json }) });
  const body = (await response.json()) as Json;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** A GET over HTTP as another server makes it, asking for ActivityPub JSON. */
async function fetchAp(url: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers: { accept: AP } });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function fetchOk(url: string): Promise<Json> {
  const { status, body } = await fetchAp(url);
  expect(status, url).toBe(200);
  return body;
}

function without(json: Json, ...keys: string[]): Json {
  return Object.fromEntries(Object.entries(json).filter(([key]) => !keys.includes(key)));
}

function list(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as Json[];
}

/** The id of `object`, whether embedded or given as its id. */
function idOf(object: unknown): unknown {
  return typeof object === "object" && object !== null ? (object as Json).id : object;
}

describeOnEngines("outgoing objects: what other servers fetch is what they were sent", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let reader: RemoteServer;
  let alice: TestUser;
  let carol: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    pair = await startKithPair(engine);
    ({ a, b } = pair);
    reader = await startRemoteServer(["reader"]);
    [alice, carol, bob] = await Promise.all([a.kith.createUser("alice"), a.kith.createUser("carol"), b.kith.createUser("bob")]);
    // Bob follows Alice, through his server's API.
    const aliceOnB = await resolveAccount(b, bob.token, `@alice@${a.host}`);
    await api(b, "POST", `/api/v1/accounts/${aliceOnB}/follow`, bob.token);
    await eventually(
      async () => ((await api(b, "GET", `/api/v1/accounts/relationships?id[]=${aliceOnB}`, bob.token)) as unknown as Json[])[0],
      (relationship) => relationship?.following === true,
    );
    // The recording server's reader follows Alice with a signed Follow, as any server would.
    const follower = reader.actors.reader;
    if (!follower) throw new Error("no reader");
    const follow = { "@context": "https://www.w3.org/ns/activitystreams", id: `${follower.id.href}#follows/1`, type: "Follow", actor: follower.id.href, object: `${a.origin}/users/alice` };
    const answer = await fetch(await reader.signedPost(`${a.origin}/users/alice/inbox`, follow, follower));
    expect(answer.status).toBeLessThan(300);
    await eventually(
      async () => reader.received.filter((request) => (request.body as Json).type === "Accept"),
      (accepts) => accepts.length === 1,
    );
    // Alice's server knows Bob, so that her mentions of him are links.
    await resolveAccount(a, alice.token, `@bob@${b.host}`);
    // A custom emoji of Alice's server, for her statuses to use.
    await giveGrants(a.kith, carol.account.id, [{ resource: "CustomEmojis", access: ["Add", "Modify", "Delete"], scope: "global" }]);
    const emoji = new FormData();
    emoji.set("shortcode", "kithcat");
    emoji.set("image", new File([Buffer.from(await makePng(16, 16))], "kithcat.png", { type: "image/png" }));
    expect((await a.kith.request("POST", "/api/v1/admin/custom_emojis", { token: carol.token, body: emoji })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await reader?.close();
    await pair?.close();
  });

  async function resolveAccount(side: PairedKith, token: string, handle: string): Promise<string> {
    const found = await api(side, "GET", `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`, token);
    const id = ((found.accounts as Json[])[0] as Json | undefined)?.id;
    if (typeof id !== "string") throw new Error(`${handle} not found`);
    return id;
  }

  /** The activity of `type` about `objectId` that the reader's inbox received. */
  async function delivered(type: string, objectId: string): Promise<Json> {
    const found = await eventually(
      async () => reader.received.map((request) => request.body as Json).find((body) => body.type === type && idOf(body.object) === objectId),
      (body) => body !== undefined,
    );
    if (!found) throw new Error(`no ${type} of ${objectId} delivered`);
    return found;
  }

  async function upload(user: TestUser, description: string): Promise<string> {
    const body = new FormData();
    body.set("file", new File([Buffer.from(await makePng(40, 30))], "square.png", { type: "image/png" }));
    body.set("description", description);
    const response = await a.kith.request("POST", "/api/v1/media", { token: user.token, body });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  it("serves a status with media, hashtags, a mention, custom emoji, a content warning and a language as it delivered it, at its id and its activity's id", async () => {
    const parent = await api(a, "POST", "/api/v1/statuses", alice.token, { status: "Where it starts", visibility: "public" });
    const media = await upload(alice, "A blue rectangle");
    const status = await api(a, "POST", "/api/v1/statuses", alice.token, {
      status: `Look at this #Kith :kithcat:, @bob@${b.host}`,
      media_ids: [media],
      spoiler_text: "colours",
      language: "en",
      in_reply_to_id: parent.id,
      visibility: "public",
    });
    const uri = String(status.uri);
    const create = await delivered("Create", uri);
    const note = create.object as Json;

    const fetched = await fetchOk(uri);
    expect(without(fetched, "@context")).toEqual(note);
    // The Create at the activity's id is the Create delivered, but for the signatures added to the delivered copy.
    const activity = await fetchOk(`${uri}/activity`);
    expect(without(activity, "@context")).toEqual(without(create, "@context", "signature", "proof"));
    expect(activity["@context"]).toEqual(create["@context"]);
    // Written for peers in Kith's own JSON-LD, the delivered Create still verifies: its Linked Data signature and its proof.
    const documentLoader = async (url: string) => ({ contextUrl: null, documentUrl: url, document: await fetchOk(url) });
    expect(await verifyJsonLd(create, { documentLoader, contextLoader: preloadedContextLoader })).toBe(true);
    expect(create.proof).toBeDefined();
    // The proof was made before the Linked Data signature was added: it is checked without it, as receivers do.
    const proved = without(create, "signature");
    expect(await verifyObject(vocab.Create, proved, { documentLoader, contextLoader: preloadedContextLoader })).not.toBeNull();

    expect(note).toMatchObject({
      type: "Note",
      summary: "colours",
      sensitive: true,
      inReplyTo: parent.uri,
      contentMap: { en: note.content },
    });
    expect(list(note.to)).toEqual([PUBLIC]);
    const [attachment] = list(note.attachment);
    expect(attachment).toMatchObject({ type: "Document", mediaType: "image/png", name: "A blue rectangle", width: 40, height: 30 });
    expect(attachment?.url).toMatch(new RegExp(`^${a.origin}/`));
    expect(typeof attachment?.blurhash).toBe("string");
    const tags = list(note.tag);
    expect(tags).toContainEqual({ type: "Hashtag", name: "#Kith", href: `${a.origin}/tags/kith` });
    expect(tags).toContainEqual({ type: "Mention", name: `@bob@${b.host}`, href: `${b.origin}/users/bob` });
    expect(tags).toContainEqual(expect.objectContaining({ type: "Emoji", name: ":kithcat:" }));
    expect(list(note.cc)).toContain(`${b.origin}/users/bob`);
    expect(note.replies).toMatchObject({ id: `${uri}/replies`, type: "Collection" });

    // The outbox lists the same Create.
    const outbox = await fetchOk(`${a.origin}/users/alice/outbox`);
    const firstPage = await fetchOk(String(outbox.first));
    const listed = list(firstPage.orderedItems).find((item) => item.id === create.id);
    expect(listed && without(listed, "@context")).toEqual(without(create, "@context", "signature", "proof"));

    // An edit's Update carries the object the status's id then serves.
    await api(a, "PUT", `/api/v1/statuses/${status.id}`, alice.token, {
      status: `Look again #Kith, @bob@${b.host}`,
      media_ids: [media],
      spoiler_text: "colours",
      language: "en",
    });
    const update = await eventually(
      async () => reader.received.map((request) => request.body as Json).find((body) => body.type === "Update" && idOf(body.object) === uri),
      (body) => body !== undefined,
    );
    const edited = update?.object as Json;
    expect(String(edited.content)).toContain("Look again");
    expect(without(await fetchOk(uri), "@context")).toEqual(edited);
  });

  it("serves a poll as the Question it delivered, with its options, voters and end", async () => {
    const status = await api(a, "POST", "/api/v1/statuses", alice.token, {
      status: `Which one? #polls @bob@${b.host}`,
      poll: { options: ["red", "blue"], expires_in: 3600, multiple: true },
      spoiler_text: "a question",
      language: "de",
      visibility: "public",
    });
    const uri = String(status.uri);
    const create = await delivered("Create", uri);
    const question = create.object as Json;
    expect(without(await fetchOk(uri), "@context")).toEqual(question);
    expect(without(await fetchOk(`${uri}/activity`), "@context")).toEqual(without(create, "@context", "signature", "proof"));
    expect(question).toMatchObject({
      type: "Question",
      summary: "a question",
      contentMap: { de: question.content },
      votersCount: 0,
      endTime: (status.poll as Json).expires_at,
    });
    expect(question.oneOf).toBeUndefined();
    expect(list(question.anyOf).map((option) => [option.type, option.name])).toEqual([
      ["Note", "red"],
      ["Note", "blue"],
    ]);
    expect(list(question.tag).map((tag) => tag.type)).toEqual(["Mention", "Hashtag"]);
    // Pinned, it is the same Question in the featured collection.
    await api(a, "POST", `/api/v1/statuses/${status.id}/pin`, alice.token);
    const featured = await fetchOk(`${a.origin}/users/alice/collections/featured`);
    const pinned = list(featured.orderedItems).find((item) => item.id === uri);
    expect(pinned && without(pinned, "@context")).toEqual(question);

    const single = await api(a, "POST", "/api/v1/statuses", alice.token, {
      status: "Just one",
      poll: { options: ["yes", "no"], expires_in: 600 },
      visibility: "unlisted",
    });
    const one = await fetchOk(String(single.uri));
    expect(list(one.oneOf).map((option) => option.name)).toEqual(["yes", "no"]);
    // A status without a language has no contentMap.
    expect(one.contentMap).toBeUndefined();
  });

  it("is kept whole by a server that only fetched it by its URL", async () => {
    const media = await upload(carol, "Carol's picture");
    const pictured = await api(a, "POST", "/api/v1/statuses", carol.token, {
      status: "Unseen elsewhere #Hidden",
      media_ids: [media],
      language: "fr",
      visibility: "public",
    });
    const polled = await api(a, "POST", "/api/v1/statuses", carol.token, {
      status: "Vote",
      poll: { options: ["one", "two", "three"], expires_in: 3600 },
      visibility: "public",
    });
    // No one on b follows Carol: b gets these only by fetching their URLs (a search with resolve).
    const found = async (url: string): Promise<Json> => {
      const result = await api(b, "GET", `/api/v2/search?q=${encodeURIComponent(url)}&resolve=true&type=statuses`, bob.token);
      const [status] = result.statuses as Json[];
      if (!status) throw new Error(`${url} not resolved`);
      return status;
    };
    const picture = await found(String(pictured.uri));
    expect((picture.media_attachments as Json[]).map((attachment) => attachment.description)).toEqual(["Carol's picture"]);
    expect((picture.tags as Json[]).map((tag) => tag.name)).toEqual(["hidden"]);
    expect(picture.language).toBe("fr");
    const poll = (await found(String(polled.uri))).poll as Json | null;
    expect((poll?.options as Json[] | undefined)?.map((option) => option.title)).toEqual(["one", "two", "three"]);
  });

  it("answers a boost's Announce at its id, with the boosted status's author in cc, as delivered", async () => {
    const original = await api(b, "POST", "/api/v1/statuses", bob.token, { status: "Boost me", visibility: "public" });
    // Alice does not follow Bob: his status is found by its URL.
    const search = `/api/v2/search?q=${encodeURIComponent(String(original.uri))}&resolve=true&type=statuses`;
    const [local] = (await api(a, "GET", search, alice.token)).statuses as Json[];
    const boost = await api(a, "POST", `/api/v1/statuses/${local?.id}/reblog`, alice.token);
    const announce = await delivered("Announce", String(original.uri));
    expect(announce.id).toBe(`${a.origin}/users/alice/statuses/${boost.id}/activity`);
    expect(list(announce.cc)).toContain(`${b.origin}/users/bob`);
    const served = await fetchOk(String(announce.id));
    expect(without(served, "@context")).toEqual(without(announce, "@context", "signature", "proof"));
    // The boost itself is no object of its own.
    expect((await fetchAp(`${a.origin}/users/alice/statuses/${boost.id}`)).status).toBe(404);
  });

  it("answers 404 for the activity of a status not everyone may see, of another account, or of none", async () => {
    const followersOnly = await api(a, "POST", "/api/v1/statuses", alice.token, { status: "friends", visibility: "private" });
    const direct = await api(a, "POST", "/api/v1/statuses", alice.token, { status: `@bob@${b.host} psst`, visibility: "direct" });
    const open = await api(a, "POST", "/api/v1/statuses", alice.token, { status: "open", visibility: "unlisted" });
    for (const hidden of [followersOnly, direct]) {
      expect((await fetchAp(`${hidden.uri}/activity`)).status).toBe(404);
      expect((await fetchAp(`${hidden.uri}/replies`)).status).toBe(404);
      expect((await fetchAp(`${hidden.uri}/replies?cursor=`)).status).toBe(404);
    }
    expect((await fetchAp(`${open.uri}/activity`)).status).toBe(200);
    expect((await fetchAp(`${a.origin}/users/carol/statuses/${open.id}/activity`)).status).toBe(404);
    expect((await fetchAp(`${a.origin}/users/alice/statuses/st_00000000000000000000000000/activity`)).status).toBe(404);
    expect((await fetchAp(`${a.origin}/users/nobody/statuses/${open.id}/activity`)).status).toBe(404);
  });

  it("lists the replies anyone may see in the status's replies collection", async () => {
    const status = await api(a, "POST", "/api/v1/statuses", alice.token, { status: "Reply to me", visibility: "public" });
    const uri = String(status.uri);
    await delivered("Create", uri);
    const onB = await eventually(
      async () => (await api(b, "GET", "/api/v1/timelines/home", bob.token)) as unknown as Json[],
      (statuses) => statuses.some((seen) => seen.uri === uri),
    );
    const parentOnB = onB.find((seen) => seen.uri === uri);
    const reply = await api(b, "POST", "/api/v1/statuses", bob.token, { status: "a reply", in_reply_to_id: parentOnB?.id });
    await api(b, "POST", "/api/v1/statuses", bob.token, { status: "a quiet reply", in_reply_to_id: parentOnB?.id, visibility: "private" });
    const own = await api(a, "POST", "/api/v1/statuses", alice.token, { status: "and mine", in_reply_to_id: status.id });
    await eventually(
      async () => (await api(a, "GET", `/api/v1/statuses/${status.id}`, alice.token)).replies_count,
      (count) => count === 3,
    );

    const note = await fetchOk(uri);
    const replies = note.replies as Json;
    const collection = await fetchOk(String(replies.id));
    expect(collection).toMatchObject({ id: replies.id, type: "Collection", totalItems: 2, first: replies.first });
    const page = await fetchOk(String(replies.first));
    expect(page).toMatchObject({ type: "CollectionPage", partOf: replies.id });
    // In the order the replies reached Alice's server; the followers-only one is not listed.
    expect(list(page.items).sort()).toEqual([reply.uri, own.uri].sort());
    expect((await fetchAp(`${a.origin}/users/alice/statuses/st_00000000000000000000000000/replies`)).status).toBe(404);
  });

  it("tags the bio's hashtags on the actor, types its images, and links featured hashtags and indexable", async () => {
    const body = new FormData();
    body.set("note", "I post about #Cats and #gardening");
    body.set("indexable", "true");
    body.set("avatar", new File([Buffer.from(await makePng(32, 32))], "me.png", { type: "image/png" }));
    const updated = await a.kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: alice.token, body });
    expect(updated.status).toBe(200);

    const actor = await fetchOk(`${a.origin}/users/alice`);
    expect(list(actor.tag)).toEqual([
      { type: "Hashtag", name: "#Cats", href: `${a.origin}/tags/cats` },
      { type: "Hashtag", name: "#gardening", href: `${a.origin}/tags/gardening` },
    ]);
    expect(actor.indexable).toBe(true);
    expect(actor.icon).toMatchObject({ type: "Image", mediaType: expect.stringMatching(/^image\//) });
    expect(actor.featuredTags).toBe(`${a.origin}/users/alice/collections/tags`);
    expect(await fetchOk(String(actor.featuredTags))).toMatchObject({ type: "OrderedCollection", totalItems: 0 });
    expect((await fetchAp(`${a.origin}/users/nobody/collections/tags`)).status).toBe(404);

    // An account that did not opt in is not indexable.
    const other = await fetchOk(`${a.origin}/users/carol`);
    expect(other.indexable).toBe(false);
    expect(other.tag).toBeUndefined();
  });
});
