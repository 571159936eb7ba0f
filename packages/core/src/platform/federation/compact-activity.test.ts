import {
  Activity,
  Announce,
  Create,
  Delete,
  Document,
  Follow,
  Hashtag,
  Image,
  Like,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Tombstone,
  Undo,
  Update,
} from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { describe, expect, it } from "vitest";
import { MASTODON_CONTEXT, preloadedContextLoader } from "../../testing/offline-documents.js";
import { readCompactActivity } from "./compact-activity.js";

const loader = preloadedContextLoader;

async function expanded(activity: Activity): Promise<unknown> {
  return await activity.toJsonLd({ format: "expand", contextLoader: loader });
}

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

const MISSKEY_CONTEXT = [
  AS,
  "https://w3id.org/security/v1",
  {
    Key: "sec:Key",
    manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
    sensitive: "as:sensitive",
    Hashtag: "as:Hashtag",
    quoteUrl: "as:quoteUrl",
    fedibird: "http://fedibird.com/ns#",
    quoteUri: "fedibird:quoteUri",
    toot: "http://joinmastodon.org/ns#",
    Emoji: "toot:Emoji",
    featured: "toot:featured",
    discoverable: "toot:discoverable",
    schema: "http://schema.org#",
    PropertyValue: "schema:PropertyValue",
    value: "schema:value",
    misskey: "https://misskey-hub.net/ns#",
    _misskey_content: "misskey:_misskey_content",
    _misskey_quote: "misskey:_misskey_quote",
    _misskey_reaction: "misskey:_misskey_reaction",
    _misskey_votes: "misskey:_misskey_votes",
    _misskey_summary: "misskey:_misskey_summary",
    isCat: "misskey:isCat",
    vcard: "http://www.w3.org/2006/vcard/ns#",
  },
];

const alice = "https://mastodon.example/users/alice";
const published = "2026-11-20T10:15:30Z";

function mastodonNote(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `${alice}/statuses/1`,
    type: "Note",
    summary: null,
    inReplyTo: null,
    published,
    url: "https://mastodon.example/@alice/1",
    attributedTo: alice,
    to: [PUBLIC],
    cc: [`${alice}/followers`, "https://other.example/users/bob"],
    sensitive: false,
    atomUri: `${alice}/statuses/1`,
    inReplyToAtomUri: null,
    conversation: "tag:mastodon.example,2026-11-20:objectId=1:objectType=Conversation",
    content:
      '<p>Hello <span class="h-card"><a href="https://other.example/@bob">@bob</a></span> <a href="https://mastodon.example/tags/kith">#kith</a> :blob:</p>',
    contentMap: { en: "<p>Hello @bob #kith :blob:</p>" },
    attachment: [
      {
        type: "Document",
        mediaType: "image/png",
        url: "https://files.mastodon.example/media/1.png",
        name: "A cat",
        blurhash: "UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH",
        focalPoint: [0.0, 0.5],
        width: 640,
        height: 480,
      },
    ],
    tag: [
      { type: "Mention", href: "https://other.example/users/bob", name: "@bob@other.example" },
      { type: "Hashtag", href: "https://mastodon.example/tags/kith", name: "#kith" },
      {
        id: "https://mastodon.example/emojis/7",
        type: "Emoji",
        name: ":blob:",
        updated: "2026-01-01T00:00:00Z",
        icon: { type: "Image", mediaType: "image/png", url: "https://files.mastodon.example/emoji/blob.png" },
      },
    ],
    replies: {
      id: `${alice}/statuses/1/replies`,
      type: "Collection",
      first: {
        type: "CollectionPage",
        next: `${alice}/statuses/1/replies?only_other_accounts=true&page=true`,
        partOf: `${alice}/statuses/1/replies`,
        items: [],
      },
    },
    likes: { id: `${alice}/statuses/1/likes`, type: "Collection", totalItems: 3 },
    shares: { id: `${alice}/statuses/1/shares`, type: "Collection", totalItems: 0 },
    ...extra,
  };
}

function mastodonCreate(note: Record<string, unknown> = mastodonNote(), type = "Create"): Record<string, unknown> {
  return {
    "@context": MASTODON_CONTEXT,
    id: `${alice}/statuses/1/activity`,
    type,
    actor: alice,
    published,
    to: [PUBLIC],
    cc: [`${alice}/followers`, "https://other.example/users/bob"],
    object: note,
  };
}

const bench = "https://remote-1.bench.example/users/actor-1";
const benchCreate = {
  "@context": AS,
  id: `${bench}/bench-activities/run-0`,
  type: "Create",
  actor: bench,
  published,
  to: [PUBLIC],
  cc: [`${bench}/followers`],
  object: {
    id: `${bench}/bench-notes/run-0`,
    type: "Note",
    attributedTo: bench,
    content: "<p>Inbox benchmark note 0 from a remote actor, with a few words of text.</p>",
    published,
    to: [PUBLIC],
    cc: [`${bench}/followers`],
  },
};
const benchLike = {
  "@context": AS,
  id: `${bench}/bench-likes/run-1`,
  type: "Like",
  actor: bench,
  object: "https://kith.example/users/carol/posts/01J",
};

const misskey = "https://misskey.example/users/9abc";
const misskeyNote = {
  id: "https://misskey.example/notes/9xyz",
  type: "Note",
  attributedTo: misskey,
  content: "<p>Misskey note</p>",
  _misskey_content: "Misskey note",
  source: { content: "Misskey note", mediaType: "text/x.misskeymarkdown" },
  _misskey_quote: "https://other.example/notes/1",
  quoteUrl: "https://other.example/notes/1",
  quoteUri: "https://other.example/notes/1",
  published: "2026-11-20T10:15:30.123Z",
  to: [PUBLIC],
  cc: [`${misskey}/followers`],
  inReplyTo: null,
  attachment: [],
  sensitive: false,
  tag: [],
};

const gts = "https://gts.example/users/erin";
const GTS_CONTEXT = [
  "https://gotosocial.org/ns",
  AS,
  {
    Hashtag: "as:Hashtag",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
    Emoji: "toot:Emoji",
  },
];
const gtsNote = {
  id: `${gts}/statuses/01JD`,
  type: "Note",
  attributedTo: gts,
  content: "<p>From GoToSocial</p>",
  contentMap: { "en-GB": "<p>From GoToSocial</p>", "zh-Hant-TW": "<p>來自</p>" },
  published,
  url: "https://gts.example/@erin/statuses/01JD",
  to: [PUBLIC],
  cc: [`${gts}/followers`],
  sensitive: false,
  summary: "",
  tag: [],
  attachment: [
    {
      type: "Image",
      mediaType: "image/jpeg",
      name: "Black and white text",
      summary: "Black and white text",
      url: "https://gts.example/fileserver/01/attachment/original/01.jpg",
      blurhash: "LIIE|gRj00WB-;j[t7j[4nWBj[Rj",
      focalPoint: [-0.5, 0.5],
    },
    { type: "Video", mediaType: "video/mp4", url: "https://gts.example/fileserver/01/attachment/original/02.mp4" },
  ],
  replies: `${gts}/statuses/01JD/replies`,
  interactionPolicy: {
    canLike: { automaticApproval: [PUBLIC], manualApproval: [] },
    canReply: { automaticApproval: [`${gts}/followers`], manualApproval: [PUBLIC] },
    canAnnounce: { always: [PUBLIC], approvalRequired: [] },
  },
  approvedBy: "https://kith.example/authorizations/1",
};

/** Documents of each shape the reader takes: it must give what Fedify's parse gives. */
const ACCEPTED: Record<string, Record<string, unknown>> = {
  "the benchmark's Create(Note)": benchCreate,
  "the benchmark's Like": benchLike,
  "Mastodon Create(Note) with mentions, hashtag, emoji, attachment, collections": mastodonCreate(),
  "Mastodon Update(Note)": mastodonCreate(mastodonNote({ updated: "2026-11-21T00:00:00Z" }), "Update"),
  "Mastodon reply with a summary": mastodonCreate(
    mastodonNote({ inReplyTo: "https://other.example/users/bob/statuses/9", summary: "spoiler", sensitive: true }),
  ),
  "Mastodon Like": { "@context": AS, id: `${alice}#likes/12`, type: "Like", actor: alice, object: "https://kith.example/posts/1" },
  "Mastodon Announce": {
    "@context": AS,
    id: `${alice}/statuses/2/activity`,
    type: "Announce",
    actor: alice,
    published,
    to: [PUBLIC],
    cc: ["https://kith.example/users/carol", `${alice}/followers`],
    object: "https://kith.example/posts/1",
  },
  "Mastodon Follow": {
    "@context": AS,
    id: "https://mastodon.example/0f3c",
    type: "Follow",
    actor: alice,
    object: "https://kith.example/users/carol",
  },
  "Mastodon Undo(Follow)": {
    "@context": AS,
    id: `${alice}#follows/5/undo`,
    type: "Undo",
    actor: alice,
    object: { id: "https://mastodon.example/0f3c", type: "Follow", actor: alice, object: "https://kith.example/users/carol" },
  },
  "Mastodon Undo(Like)": {
    "@context": AS,
    id: `${alice}#likes/12/undo`,
    type: "Undo",
    actor: alice,
    object: { id: `${alice}#likes/12`, type: "Like", actor: alice, object: "https://kith.example/posts/1" },
  },
  "Mastodon Undo(Announce)": {
    "@context": AS,
    id: `${alice}/statuses/2#announces/2/undo`,
    type: "Undo",
    actor: alice,
    to: [PUBLIC],
    object: {
      id: `${alice}/statuses/2/activity`,
      type: "Announce",
      actor: alice,
      published,
      to: [PUBLIC],
      cc: ["https://kith.example/users/carol"],
      object: "https://kith.example/posts/1",
    },
  },
  "Mastodon Undo(Block)": {
    "@context": AS,
    id: `${alice}#blocks/3/undo`,
    type: "Undo",
    actor: alice,
    object: { id: "https://mastodon.example/b1", type: "Block", actor: alice, object: "https://kith.example/users/carol" },
  },
  "Undo of an IRI": { "@context": AS, id: `${alice}#likes/13/undo`, type: "Undo", actor: alice, object: `${alice}#likes/13` },
  "Mastodon Delete(Tombstone)": {
    "@context": [AS, { ostatus: "http://ostatus.org#", atomUri: "ostatus:atomUri" }],
    id: `${alice}/statuses/1#delete`,
    type: "Delete",
    actor: alice,
    to: [PUBLIC],
    object: { id: `${alice}/statuses/1`, type: "Tombstone", atomUri: `${alice}/statuses/1` },
  },
  "Delete of an IRI": { "@context": AS, id: `${alice}/statuses/1#delete`, type: "Delete", actor: alice, object: `${alice}/statuses/1` },
  "Accept(Follow) of the sender's own Follow": {
    "@context": AS,
    id: `${alice}#accepts/follows/1`,
    type: "Accept",
    actor: alice,
    object: { id: `${alice}#follows/1`, type: "Follow", actor: alice, object: "https://kith.example/users/carol" },
  },
  "Reject(Follow) of an IRI": {
    "@context": AS,
    id: `${alice}#rejects/follows/1`,
    type: "Reject",
    actor: alice,
    object: "https://kith.example/follows/1",
  },
  "Misskey Create(Note) with a quote and source": {
    "@context": MISSKEY_CONTEXT,
    id: "https://misskey.example/notes/9xyz/activity",
    actor: misskey,
    type: "Create",
    published: "2026-11-20T10:15:30.123Z",
    object: misskeyNote,
    to: [PUBLIC],
    cc: [`${misskey}/followers`],
  },
  "Misskey Like with a reaction": {
    "@context": MISSKEY_CONTEXT,
    type: "Like",
    id: "https://misskey.example/likes/9r",
    actor: misskey,
    object: "https://kith.example/posts/1",
    content: "👍",
    _misskey_reaction: "👍",
  },
  "Misskey quote under _misskey_quote only": {
    "@context": MISSKEY_CONTEXT,
    id: "https://misskey.example/notes/9q/activity",
    actor: misskey,
    type: "Create",
    object: { ...misskeyNote, id: "https://misskey.example/notes/9q", quoteUrl: undefined, quoteUri: undefined },
  },
  "keys sharing an IRI written in reverse order": mastodonCreate(
    Object.fromEntries(Object.entries(mastodonNote({ contentMap: { fr: "<p>Salut</p>", de: "<p>Hallo</p>" } })).reverse()),
  ),
  "an IRI written as a compact IRI": { ...benchCreate, to: "as:Public" },
  "Mastodon 4.5 quote post": {
    ...mastodonCreate(
      mastodonNote({
        quote: "https://other.example/users/bob/statuses/9",
        _misskey_quote: "https://other.example/users/bob/statuses/9",
        quoteUri: "https://other.example/users/bob/statuses/9",
        quoteAuthorization: "https://other.example/users/bob/quote_authorizations/3",
      }),
    ),
    "@context": [
      ...MASTODON_CONTEXT,
      {
        quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" },
        quoteUri: "http://fedibird.com/ns#quoteUri",
        _misskey_quote: "https://misskey-hub.net/ns#_misskey_quote",
        quoteAuthorization: { "@id": "https://w3id.org/fep/044f#quoteAuthorization", "@type": "@id" },
      },
    ],
  },
  "GoToSocial Create(Note) with an interaction policy, image and video": {
    "@context": GTS_CONTEXT,
    id: `${gts}/statuses/01JD/activity`,
    type: "Create",
    actor: gts,
    published,
    to: [PUBLIC],
    cc: [`${gts}/followers`],
    object: gtsNote,
  },
  "repeated addressees and Misskey's summary copy": {
    "@context": MISSKEY_CONTEXT,
    id: "https://misskey.example/notes/9r/activity",
    actor: misskey,
    type: "Create",
    to: [PUBLIC, PUBLIC],
    object: { ...misskeyNote, id: "https://misskey.example/notes/9r", summary: "cw", _misskey_summary: "cw", cc: [misskey, misskey] },
  },
  "a term no context defines (Fedify drops it too)": { ...benchCreate, object: { ...benchCreate.object, sensitive: true } },
  "a Note with a language map only and a local date without offset": mastodonCreate(
    mastodonNote({ content: undefined, contentMap: { ja: "<p>こんにちは</p>", en: "<p>hello</p>" }, published: "2026-11-20T10:15:30" }),
  ),
};

describe("readCompactActivity", () => {
  for (const [name, document] of Object.entries(ACCEPTED)) {
    it(`reads ${name} as Fedify does`, async () => {
      const json = JSON.parse(JSON.stringify(document));
      const compact = readCompactActivity(json);
      expect(compact).not.toBeNull();
      const parsed = await Activity.fromJsonLd(json, { documentLoader: loader, contextLoader: loader });
      expect(compact?.constructor).toBe(parsed.constructor);
      expect(await expanded(compact as Activity)).toEqual(await expanded(parsed));
      expect(await compact?.toJsonLd()).toEqual(json);
      // Instants that pass Fedify's check, at the same time and printed alike (compact-values.ts reads the common form itself).
      if (parsed.published) {
        // Fedify's constructors check an instant's shape and throw on one they refuse.
        expect(new Note({ published: compact?.published }).published).toBe(compact?.published);
        expect(compact?.published?.epochNanoseconds).toBe(parsed.published.epochNanoseconds);
        expect(String(compact?.published)).toBe(String(parsed.published));
      } else expect(compact?.published).toBeNull();
      // The embedded objects are the same classes, reached the same way (same origin, so no fetch).
      const object = await compact?.getObject({ documentLoader: loader, suppressError: true });
      const parsedObject = await parsed.getObject({ documentLoader: loader, suppressError: true });
      expect(object?.constructor).toBe(parsedObject?.constructor);
    });
  }

  it("reads the activities Fedify itself writes", async () => {
    const note = new Note({
      id: new URL("https://fedify.example/notes/1"),
      attribution: new URL("https://fedify.example/users/dana"),
      contents: ["<p>Hi</p>", new (await import("@fedify/fedify/vocab")).LanguageString("<p>Hi</p>", "en")],
      published: Temporal.Instant.from(published),
      tos: [PUBLIC_COLLECTION],
      ccs: [new URL("https://fedify.example/users/dana/followers")],
      tags: [
        new Mention({ href: new URL("https://kith.example/users/carol"), name: "@carol@kith.example" }),
        new Hashtag({ href: new URL("https://fedify.example/tags/kith"), name: "#kith" }),
      ],
      sensitive: false,
      quoteUrl: new URL("https://other.example/notes/2"),
    });
    const documents = [
      new Create({
        id: new URL("https://fedify.example/notes/1/create"),
        actor: new URL("https://fedify.example/users/dana"),
        object: note,
        tos: [PUBLIC_COLLECTION],
      }),
      new Update({
        id: new URL("https://fedify.example/notes/1/update"),
        actor: new URL("https://fedify.example/users/dana"),
        object: note.clone({
          updated: Temporal.Instant.from("2026-11-21T00:00:00Z"),
          attachments: [
            new Document({ mediaType: "image/png", url: new URL("https://files.fedify.example/1.png"), width: 10, height: 20, name: "a" }),
            new Image({ mediaType: "image/jpeg", url: new URL("https://files.fedify.example/2.jpg") }),
          ],
          replyTarget: new URL("https://kith.example/posts/1"),
          summary: "cw",
        }),
      }),
      new Announce({
        id: new URL("https://fedify.example/announces/1"),
        actor: new URL("https://fedify.example/users/dana"),
        object: new URL("https://kith.example/posts/1"),
        published: Temporal.Instant.from(published),
        tos: [PUBLIC_COLLECTION],
      }),
      new Delete({
        id: new URL("https://fedify.example/notes/1/delete"),
        actor: new URL("https://fedify.example/users/dana"),
        object: new Tombstone({ id: new URL("https://fedify.example/notes/1") }),
      }),
      new Like({
        id: new URL("https://fedify.example/likes/1"),
        actor: new URL("https://fedify.example/users/dana"),
        object: new URL("https://kith.example/posts/1"),
      }),
      new Follow({
        id: new URL("https://fedify.example/follows/1"),
        actor: new URL("https://fedify.example/users/dana"),
        object: new URL("https://kith.example/users/carol"),
      }),
      new Undo({
        id: new URL("https://fedify.example/follows/1/undo"),
        actor: new URL("https://fedify.example/users/dana"),
        object: new Follow({
          id: new URL("https://fedify.example/follows/1"),
          actor: new URL("https://fedify.example/users/dana"),
          object: new URL("https://kith.example/users/carol"),
        }),
      }),
    ];
    for (const activity of documents) {
      const json = await activity.toJsonLd({ contextLoader: loader });
      const compact = readCompactActivity(json);
      expect(compact, JSON.stringify(json)).not.toBeNull();
      const parsed = await Activity.fromJsonLd(json, { documentLoader: loader, contextLoader: loader });
      expect(compact?.constructor).toBe(parsed.constructor);
      expect(await expanded(compact as Activity)).toEqual(await expanded(parsed));
    }
  });

  it("keeps the loaders it is given, as Fedify's parse does", () => {
    const activity = readCompactActivity(benchLike, { documentLoader: loader, contextLoader: loader });
    expect((activity as unknown as { _documentLoader: unknown })._documentLoader).toBe(loader);
    expect((activity as unknown as { _contextLoader: unknown })._contextLoader).toBe(loader);
  });

  it("keeps its own copy of the document", async () => {
    const json = JSON.parse(JSON.stringify(benchLike));
    const activity = readCompactActivity(json);
    json.object = "https://elsewhere.example/";
    expect(await activity?.toJsonLd()).toEqual(benchLike);
  });

  it("keeps the document it is given without a copy when the caller owns it", async () => {
    const json = JSON.parse(JSON.stringify(benchLike));
    const activity = readCompactActivity(json, {}, true);
    expect(await activity?.toJsonLd()).toBe(json);
    expect(await readCompactActivity(json)?.toJsonLd()).not.toBe(json);
  });
});

/** Documents the reader must leave to Fedify. */
const REFUSED: Record<string, unknown> = {
  "not an object": "Like",
  "an array": [benchLike],
  "no context": { ...benchLike, "@context": undefined },
  "an unknown context URL": { ...benchLike, "@context": "https://example.com/context.jsonld" },
  "a context without ActivityStreams": { ...benchLike, "@context": ["https://w3id.org/security/v1"] },
  "Pleroma's instance context": {
    ...benchLike,
    "@context": [AS, "https://pleroma.example/schemas/litepub-0.1.jsonld", { "@language": "und" }],
  },
  "an inline @vocab": { ...benchLike, "@context": [AS, { "@vocab": "https://example.com/#" }] },
  "an inline @language": { ...benchLike, "@context": [AS, { "@language": "en" }] },
  "a redefined property": { ...benchLike, "@context": [AS, { object: "https://example.com/#object" }] },
  "a redefined type": { ...benchLike, "@context": [AS, { Like: "https://example.com/#Like" }] },
  "a redefined prefix that a later term uses": {
    ...mastodonCreate(mastodonNote({ sensitive: true })),
    "@context": [AS, { as: "https://example.com/#", sensitive: "as:sensitive" }],
  },
  "another alias of @id": {
    ...benchLike,
    "@context": [AS, { uri: "@id" }],
    id: undefined,
    uri: "https://remote-1.bench.example/likes/1",
  },
  "another alias of @type": { ...benchLike, "@context": [AS, { kind: "@type" }], type: undefined, kind: "Like" },
  "a redefined id alias": { ...benchLike, "@context": [AS, { id: "https://example.com/#id" }] },
  "a scoped context in a term": {
    ...benchLike,
    "@context": [AS, { object: { "@id": "as:object", "@type": "@id", "@context": {} } }],
  },
  "an IRI value with an unknown prefix": { ...benchLike, object: "kith:posts/1" },
  "an IRI value that is a term": { ...benchLike, object: "Public" },
  "a relative id": { ...benchLike, id: "/likes/1" },
  "a relative object": { ...benchLike, object: "../posts/1" },
  "a blank-node id": { ...benchLike, id: "_:b0" },
  "no id": { ...benchLike, id: undefined },
  "an @id alias used directly": { ...benchLike, id: undefined, "@id": "https://remote.example/likes/1" },
  "an @type key": { ...benchLike, type: undefined, "@type": "Like" },
  "a type array": { ...benchLike, type: ["Like"] },
  "an unknown type": { ...benchLike, type: "EmojiReact" },
  "a Question": { ...benchCreate, object: { ...benchCreate.object, type: "Question" } },
  "a compact IRI key": { ...benchLike, "as:object": "https://kith.example/posts/1", object: undefined },
  "an unknown defined property": { ...benchLike, "@context": [AS, { mood: "https://example.com/#mood" }], mood: "happy" },
  "a property read by Fedify that the reader does not handle": { ...benchLike, target: "https://kith.example/posts/1" },
  "an undefined term with an object value": { ...benchLike, extra: { id: "https://remote.example/x" } },
  "a Linked Data signature": {
    ...benchLike,
    "@context": [AS, "https://w3id.org/security/v1"],
    signature: { type: "RsaSignature2017", creator: `${bench}#main-key`, created: published, signatureValue: "abc" },
  },
  "an integrity proof": {
    ...benchLike,
    "@context": [AS, "https://w3id.org/security/data-integrity/v1"],
    proof: { type: "DataIntegrityProof", cryptosuite: "eddsa-jcs-2022", proofValue: "z" },
  },
  "a value object": { ...benchCreate, object: { ...benchCreate.object, content: { "@value": "hi", "@language": "en" } } },
  "a Note with an unhandled property": {
    ...benchCreate,
    object: { ...benchCreate.object, location: { type: "Place", name: "Somewhere" } },
  },
  "a Note with an embedded actor": {
    ...benchCreate,
    object: { ...benchCreate.object, attributedTo: { id: bench, type: "Person" } },
  },
  "a Note with its own context": { ...benchCreate, object: { ...benchCreate.object, "@context": AS } },
  "a Note from another origin": {
    ...benchCreate,
    object: { ...benchCreate.object, id: "https://elsewhere.example/notes/1" },
  },
  "an Accept of a Follow from another origin": {
    "@context": AS,
    id: `${alice}#accepts/follows/1`,
    type: "Accept",
    actor: alice,
    object: { id: "https://kith.example/follows/1", type: "Follow", actor: "https://kith.example/users/carol", object: alice },
  },
  "a Like of an embedded Note": { ...benchLike, object: benchCreate.object },
  "an invalid date": { ...benchCreate, published: "yesterday" },
  "a date as a number": { ...benchCreate, published: 1_700_000_000 },
  "sensitive as a string": mastodonCreate(mastodonNote({ sensitive: "true" })),
  "a Hashtag without its definition": {
    ...benchCreate,
    object: { ...benchCreate.object, tag: [{ type: "Hashtag", href: "https://x.example/tags/a", name: "#a" }] },
  },
  "two published dates": { ...benchCreate, published: [published, published] },
  "a nested array": { ...benchCreate, to: [[PUBLIC]] },
  "a language map in an array": mastodonCreate(mastodonNote({ contentMap: [{ en: "hi" }] })),
  "a language map with several texts for one language": mastodonCreate(mastodonNote({ contentMap: { en: ["hi", "hello"] } })),
  "a language map with @none": mastodonCreate(mastodonNote({ contentMap: { "@none": "hi" } })),
  "a language map with an invalid tag": mastodonCreate(mastodonNote({ contentMap: { "not a tag": "hi" } })),
  "a negative width": mastodonCreate(
    mastodonNote({ attachment: [{ type: "Document", mediaType: "image/png", url: "https://files.example/1.png", width: -1 }] }),
  ),
  "an attachment of an unhandled type": mastodonCreate(mastodonNote({ attachment: [{ type: "PropertyValue", name: "a", value: "b" }] })),
  "a focal point redefined as a read property": {
    ...mastodonCreate(),
    "@context": [AS, { focalPoint: { "@id": "as:name", "@container": "@list" } }],
  },
  "quoteUrl coerced to an IRI (Fedify's parse throws on it)": {
    ...mastodonCreate(mastodonNote({ quoteUrl: "https://other.example/notes/1" })),
    "@context": [...MASTODON_CONTEXT, { quoteUrl: { "@id": "as:quoteUrl", "@type": "@id" } }],
  },
  "a term with a definition the reader cannot read redefined": {
    ...benchLike,
    "@context": [AS, { like: { "@id": "https://example.com/#like", "@protected": true } }, { like: "https://example.com/#other" }],
  },
  "a protected term redefined": {
    ...benchLike,
    "@context": [AS, "https://w3id.org/security/data-integrity/v1", { proof: "https://example.com/#proof" }],
  },
};

describe("the properties the reader skips", () => {
  it("are dropped by Fedify's parse as well", async () => {
    // Every ignored property, on a Note Fedify parses: none of their IRIs may survive in its expanded form.
    const json = mastodonCreate(mastodonNote({ _misskey_content: "x", _misskey_summary: "y", _misskey_reaction: "z" }));
    json["@context"] = [
      ...MASTODON_CONTEXT,
      "https://gotosocial.org/ns",
      {
        misskey: "https://misskey-hub.net/ns#",
        _misskey_content: "misskey:_misskey_content",
        _misskey_summary: "misskey:_misskey_summary",
        _misskey_reaction: "misskey:_misskey_reaction",
      },
    ];
    const note = json.object as Record<string, unknown>;
    note.interactionPolicy = { canLike: { always: [PUBLIC], approvalRequired: [PUBLIC] } };
    const parsed = await Activity.fromJsonLd(json, { documentLoader: loader, contextLoader: loader });
    const text = JSON.stringify(await expanded(parsed));
    const { IGNORED_PROPERTIES } = await import("./compact-vocabulary.js");
    for (const iri of IGNORED_PROPERTIES) expect(text).not.toContain(iri);
    expect(readCompactActivity(json)).not.toBeNull();
  });
});

describe("readCompactActivity refuses", () => {
  for (const [name, document] of Object.entries(REFUSED)) {
    it(name, () => {
      expect(readCompactActivity(JSON.parse(JSON.stringify(document)))).toBeNull();
    });
  }
});

/**
 * Mutations of the accepted documents: whatever the reader still takes must
 * be what Fedify's parse gives, and Fedify must not fail on it. Seeded, so a
 * failure names a document that can be replayed.
 */
describe("readCompactActivity on mutated documents", () => {
  const VALUES: unknown[] = [
    null,
    "",
    0,
    7,
    -1,
    1.5,
    true,
    "as:Public",
    "Public",
    "https://x.example/y",
    "/relative",
    "_:b1",
    [],
    {},
    ["https://a.example/1", "https://a.example/2"],
    [null],
    [[PUBLIC]],
    "2026-11-20T10:15:30+09:00",
    "2026-13-45T99:00:00Z",
    { en: "hi" },
    { "en-GB": "hi", EN: "HI" },
    [{ en: "hi" }],
    { type: "Image", url: "https://x.example/i.png", mediaType: "image/png" },
    { canLike: { automaticApproval: "https://x.example/u" } },
    { type: "Note", id: "https://x.example/n" },
    { type: "Mention", href: "https://x.example/u" },
    { type: "Collection", totalItems: 2 },
    { "@value": "x" },
    { id: "https://x.example/only-id" },
  ];
  const KEYS = ["name", "summary", "url", "tag", "sensitive", "content", "contentMap", "nameMap", "mediaType", "width", "href", "object"];
  const MORE_KEYS = [
    ...KEYS,
    "actor",
    "first",
    "items",
    "totalItems",
    "published",
    "foo",
    "inReplyTo",
    "icon",
    "source",
    "type",
    "id",
    "interactionPolicy",
    "attachment",
  ];

  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
  }

  function objectsOf(value: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] {
    if (Array.isArray(value)) for (const item of value) objectsOf(item, found);
    else if (value !== null && typeof value === "object") {
      found.push(value as Record<string, unknown>);
      for (const [key, item] of Object.entries(value)) if (key !== "@context") objectsOf(item, found);
    }
    return found;
  }

  const CONTEXT_URLS = [
    "https://w3id.org/security/v1",
    "https://w3id.org/identity/v1",
    "https://w3id.org/security/data-integrity/v1",
    "https://www.w3.org/ns/did/v1",
    "https://gotosocial.org/ns",
    "http://joinmastodon.org/ns",
    "https://purl.archive.org/miscellany",
  ];
  const DEFINITIONS: Record<string, unknown>[] = [
    { sensitive: "as:sensitive" },
    { as: "https://example.com/#" },
    { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" },
    { Hashtag: "as:Hashtag" },
    { url: "as:url" },
    { name: { "@id": "as:name", "@type": "@id" } },
    { content: { "@id": "as:content", "@container": "@language" } },
    { published: "as:published" },
    { to: "as:to" },
    { id: "@id", type: "@type" },
    { Note: "as:Note", Like: "https://www.w3.org/ns/activitystreams#Like" },
    { object: { "@id": "as:object", "@type": "@id" } },
    { blurhash: "toot:blurhash", toot: "http://joinmastodon.org/ns#" },
    { summary: "http://schema.org#summary" },
    { tag: { "@id": "as:tag", "@type": "@id", "@container": "@set" } },
    { width: "as:width" },
  ];

  /** Another context for the document: known URLs around ActivityStreams in some order, and term definitions that may change meanings. */
  function mutateContext(copy: Record<string, unknown>, next: () => number): void {
    const current = copy["@context"];
    const entries: unknown[] = Array.isArray(current) ? [...current] : [current];
    const roll = next();
    const at = Math.floor(next() * (entries.length + 1));
    if (roll < 0.4) entries.splice(at, 0, CONTEXT_URLS[Math.floor(next() * CONTEXT_URLS.length)]);
    else if (roll < 0.8) entries.splice(at, 0, structuredClone(DEFINITIONS[Math.floor(next() * DEFINITIONS.length)]));
    else entries.reverse();
    copy["@context"] = entries;
  }

  function mutate(document: Record<string, unknown>, next: () => number): Record<string, unknown> {
    const copy = JSON.parse(JSON.stringify(document));
    if (next() < 0.3) {
      mutateContext(copy, next);
      return copy;
    }
    const objects = objectsOf(copy);
    const target = objects[Math.floor(next() * objects.length)] as Record<string, unknown>;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const keys = Object.keys(target).filter((key) => key !== "@context");
    const roll = next();
    if (roll < 0.3 && keys.length > 0) delete target[pick(keys)];
    else if (roll < 0.7 && keys.length > 0) target[pick(keys)] = structuredClone(pick(VALUES));
    else target[pick(MORE_KEYS)] = structuredClone(pick(VALUES));
    return copy;
  }

  const documents = Object.values(ACCEPTED);
  it("agree with Fedify's parse whenever they are read", async () => {
    let read = 0;
    for (let seed = 1; seed <= 1500; seed++) {
      const next = random(seed);
      const original = documents[seed % documents.length] as Record<string, unknown>;
      const document = seed % 2 === 0 ? mutate(original, next) : mutate(mutate(original, next), next);
      const compact = readCompactActivity(document);
      if (compact === null) continue;
      read++;
      const label = `seed ${seed}: ${JSON.stringify(document)}`;
      let parsed: Activity;
      try {
        parsed = await Activity.fromJsonLd(document, { documentLoader: loader, contextLoader: loader });
      } catch (error) {
        throw new Error(`Fedify refuses what the reader took (${String(error)}), ${label}`);
      }
      expect(compact.constructor, label).toBe(parsed.constructor);
      expect(await expanded(compact), label).toEqual(await expanded(parsed));
    }
    expect(read).toBeGreaterThan(100);
  }, 120_000);
});

describe("readCompactActivity on contexts JSON-LD reads otherwise, or refuses", () => {
  const victim = "https://victim.example/users/v";
  const follow = (context: unknown, extra: Record<string, unknown> = {}) => ({
    "@context": context,
    id: "https://attacker.example/follows/1",
    type: "Follow",
    actor: "https://attacker.example/users/a",
    object: "https://kith.example/users/carol",
    ...extra,
  });

  it("reads `_:` as a blank node whatever a context defines `_` as: the document is Fedify's", async () => {
    const documents = [
      // A reader of prefixes would see the attacker's actor first; JSON-LD sees a blank node, then the victim.
      follow([AS, { _: "https://attacker.example/users/" }], { actor: ["_:a", victim] }),
      follow([AS, { _: `${AS}#`, aaa: { "@id": "_:actor", "@type": "@id" } }], { aaa: "https://attacker.example/users/a", actor: victim }),
      follow([AS, { x: "https://attacker.example/" }], { actor: ["x://attacker.example/users/a", victim] }),
    ];
    for (const document of documents) {
      expect(readCompactActivity(document), JSON.stringify(document)).toBeNull();
      const parsed = await Activity.fromJsonLd(document, { documentLoader: loader, contextLoader: loader });
      expect(parsed.actorIds.map((url) => url.href)).not.toContain("https://attacker.example/users/a");
    }
  });

  it("refuses an inline context with a definition JSON-LD refuses, even unused", async () => {
    const bad: Record<string, unknown>[] = [
      { "foo:bar": "https://x.example/#y" },
      { "a/b": "https://x.example/" },
      { "": "https://x.example/" },
      { foo: { "@id": "https://x.example/foo", "@type": "@bogus" } },
      { foo: { "@id": "https://x.example/foo", "@container": "@bogus" } },
      { p: "q:x", q: "p:y" },
    ];
    for (const definitions of bad) {
      const document = follow([AS, definitions]);
      expect(readCompactActivity(document), JSON.stringify(definitions)).toBeNull();
      await expect(Activity.fromJsonLd(document, { documentLoader: loader, contextLoader: loader })).rejects.toThrow();
    }
  });

  it("refuses contexts too large to be a server's, without reading them through", () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ [`t${i}`]: `${AS}#name` }));
    expect(readCompactActivity(follow([AS, ...many]))).toBeNull();
    const wide = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`t${i}`, `${AS}#name`]));
    expect(readCompactActivity(follow([AS, wide]))).toBeNull();
    // Under the limits, the same kind of context is read.
    expect(readCompactActivity(follow([AS, ...many.slice(0, 3)]))).not.toBeNull();
  });

  it("returns null for objects nested deeper than servers nest them, instead of running out of stack", () => {
    let icon: Record<string, unknown> = { type: "Image", url: "https://mastodon.example/i.png" };
    for (let depth = 0; depth < 3_000; depth++) icon = { type: "Image", url: "https://mastodon.example/i.png", icon };
    const note = { id: `${alice}/statuses/9`, type: "Note", attributedTo: alice, content: "<p>deep</p>", attachment: [icon] };
    const create = { "@context": AS, id: `${alice}/statuses/9/activity`, type: "Create", actor: alice, object: note };
    expect(() => readCompactActivity(create)).not.toThrow();
    expect(readCompactActivity(create)).toBeNull();
  });
});
