import {
  Accept,
  Announce,
  Audio,
  Block,
  Collection,
  CollectionPage,
  Create,
  Delete,
  Document,
  Emoji,
  Follow,
  Hashtag,
  Image,
  InteractionPolicy,
  InteractionRule,
  Like,
  Mention,
  Note,
  Reject,
  Source,
  Tombstone,
  Undo,
  Update,
  Video,
} from "@fedify/fedify/vocab";

/**
 * The part of Fedify's vocabulary the compact reader builds: for each type
 * IRI its class and, for each property IRI it reads, the constructor field
 * and the one value shape accepted. Property IRIs left out make the reader
 * refuse the document, except the ones in IGNORED_PROPERTIES.
 */

const AS = "https://www.w3.org/ns/activitystreams#";
const GTS = "https://gotosocial.org/ns#";
/** Source, interaction policies and their rules have no type of their own: the keys of their untyped nodes in TYPES. */
const SOURCE = "urn:kith:compact:source";
const POLICY = "urn:kith:compact:interaction-policy";
const RULE = "urn:kith:compact:interaction-rule";
const XSD = "http://www.w3.org/2001/XMLSchema#";

/**
 * How a property's values are written: `iri` an IRI string (coerced with
 * `@id`); `node` an IRI or an embedded object of `types`; `text` a string or
 * a language map; `string` a plain string; `instant` an `xsd:dateTime`;
 * `boolean`; `count` an `xsd:nonNegativeInteger`; `url` an IRI written as a
 * plain string (`quoteUrl` and its aliases are not coerced to `@id`).
 */
export type ValueShape =
  | { readonly kind: "iri" }
  | { readonly kind: "node"; readonly types: readonly string[]; readonly untyped?: string }
  | { readonly kind: "text" | "string" | "instant" | "boolean" | "count" | "url" };

export interface PropertySpec {
  /** The constructor's field: the plural one for properties that take many values, the singular one for functional properties. */
  readonly field: string;
  readonly functional: boolean;
  readonly shape: ValueShape;
  /** For several IRIs feeding one field (`quoteUrl`): Fedify takes the values of the lowest rank that has any. */
  readonly rank?: number;
}

type VocabularyClass = new (values: Record<string, unknown>, options: Record<string, unknown>) => object;

export interface TypeSpec {
  readonly type: VocabularyClass;
  readonly properties: ReadonlyMap<string, PropertySpec>;
}

/** The coercion each shape needs in the term's definition. */
export function coercionOf(shape: ValueShape): string | undefined {
  switch (shape.kind) {
    case "iri":
    case "node":
      return "@id";
    case "instant":
      return `${XSD}dateTime`;
    case "count":
      return `${XSD}nonNegativeInteger`;
    default:
      return undefined;
  }
}

const many = (field: string, shape: ValueShape): PropertySpec => ({ field, functional: false, shape });
const one = (field: string, shape: ValueShape, rank?: number): PropertySpec => ({
  field,
  functional: true,
  shape,
  ...(rank === undefined ? {} : { rank }),
});
const IRI: ValueShape = { kind: "iri" };
const nodes = (...types: string[]): ValueShape => ({ kind: "node", types: types.map((type) => AS + type) });

const OBJECT: Record<string, PropertySpec> = {
  attributedTo: many("attributions", IRI),
  audience: many("audiences", IRI),
  to: many("tos", IRI),
  cc: many("ccs", IRI),
  bto: many("btos", IRI),
  bcc: many("bccs", IRI),
  content: many("contents", { kind: "text" }),
  name: many("names", { kind: "text" }),
  summary: many("summaries", { kind: "text" }),
  context: many("contexts", IRI),
  inReplyTo: many("replyTargets", IRI),
  url: many("urls", IRI),
  published: one("published", { kind: "instant" }),
  updated: one("updated", { kind: "instant" }),
  sensitive: one("sensitive", { kind: "boolean" }),
  mediaType: one("mediaType", { kind: "string" }),
  icon: many("icons", { kind: "node", types: [`${AS}Image`] }),
  tag: many("tags", { kind: "node", types: [`${AS}Mention`, `${AS}Hashtag`, "http://joinmastodon.org/ns#Emoji"] }),
  attachment: many("attachments", nodes("Document", "Image", "Video", "Audio")),
  replies: one("replies", nodes("Collection")),
  likes: one("likes", nodes("Collection")),
  shares: one("shares", nodes("Collection")),
  source: one("source", { kind: "node", types: [], untyped: SOURCE }),
};

const ACTIVITY: Record<string, PropertySpec> = { ...OBJECT, actor: many("actors", IRI) };

const NOTE_EXTRA: [string, PropertySpec][] = [
  [`${AS}quoteUrl`, one("quoteUrl", { kind: "url" }, 0)],
  ["https://misskey-hub.net/ns#_misskey_quote", one("quoteUrl", { kind: "url" }, 1)],
  ["http://fedibird.com/ns#quoteUri", one("quoteUrl", { kind: "url" }, 2)],
  // FEP-044f quotes (Mastodon 4.5): the quoted status and the authorization its author gave, as IRIs.
  ["https://w3id.org/fep/044f#quote", one("quote", IRI)],
  ["https://w3id.org/fep/044f#quoteAuthorization", one("quoteAuthorization", IRI)],
];

/** GoToSocial's extensions every Object reads. */
const OBJECT_EXTRA: [string, PropertySpec][] = [
  [`${GTS}interactionPolicy`, one("interactionPolicy", { kind: "node", types: [], untyped: POLICY })],
  [`${GTS}approvedBy`, one("approvedBy", IRI)],
];

function spec(
  type: VocabularyClass,
  properties: Record<string, PropertySpec>,
  extra: [string, PropertySpec][] = [],
  prefix = AS,
): TypeSpec {
  const map = new Map<string, PropertySpec>(Object.entries(properties).map(([name, property]) => [prefix + name, property]));
  for (const [iri, property] of extra) map.set(iri, property);
  return { type, properties: map };
}

const objectSpec = (type: VocabularyClass, properties: Record<string, PropertySpec>, extra: [string, PropertySpec][] = []) =>
  spec(type, properties, [...OBJECT_EXTRA, ...extra]);

const RULE_SHAPE: ValueShape = { kind: "node", types: [], untyped: RULE };

const activityOf = (type: VocabularyClass, object: ValueShape): TypeSpec =>
  objectSpec(type, { ...ACTIVITY, object: many("objects", object) });

const COLLECTION: Record<string, PropertySpec> = {
  ...OBJECT,
  totalItems: one("totalItems", { kind: "count" }),
  first: one("first", nodes("CollectionPage")),
  items: many("items", IRI),
};

const DOCUMENT: Record<string, PropertySpec> = {
  ...OBJECT,
  width: one("width", { kind: "count" }),
  height: one("height", { kind: "count" }),
};

const LINK: Record<string, PropertySpec> = {
  href: one("href", IRI),
  name: many("names", { kind: "text" }),
  mediaType: one("mediaType", { kind: "string" }),
};

const FOLLOW = activityOf(Follow, IRI);
const REACTIONS = nodes("Follow", "Like", "Announce", "Block");

export const TYPES: ReadonlyMap<string, TypeSpec> = new Map([
  [`${AS}Create`, activityOf(Create, nodes("Note"))],
  [`${AS}Update`, activityOf(Update, nodes("Note"))],
  [`${AS}Like`, activityOf(Like, IRI)],
  [`${AS}Announce`, activityOf(Announce, IRI)],
  [`${AS}Follow`, FOLLOW],
  [`${AS}Block`, activityOf(Block, IRI)],
  [`${AS}Accept`, activityOf(Accept, nodes("Follow"))],
  [`${AS}Reject`, activityOf(Reject, nodes("Follow"))],
  [`${AS}Undo`, activityOf(Undo, REACTIONS)],
  [`${AS}Delete`, activityOf(Delete, nodes("Tombstone"))],
  [`${AS}Note`, objectSpec(Note, OBJECT, NOTE_EXTRA)],
  [`${AS}Tombstone`, objectSpec(Tombstone, OBJECT)],
  [`${AS}Document`, objectSpec(Document, DOCUMENT)],
  [`${AS}Image`, objectSpec(Image, DOCUMENT)],
  [`${AS}Collection`, objectSpec(Collection, COLLECTION)],
  [
    `${AS}CollectionPage`,
    objectSpec(CollectionPage, { ...COLLECTION, next: one("next", IRI), prev: one("prev", IRI), partOf: one("partOf", IRI) }),
  ],
  [`${AS}Mention`, spec(Mention, LINK)],
  [`${AS}Hashtag`, spec(Hashtag, LINK)],
  ["http://joinmastodon.org/ns#Emoji", objectSpec(Emoji, OBJECT)],
  [`${AS}Video`, objectSpec(Video, DOCUMENT)],
  [`${AS}Audio`, objectSpec(Audio, DOCUMENT)],
  [
    POLICY,
    spec(
      InteractionPolicy,
      { canLike: one("canLike", RULE_SHAPE), canReply: one("canReply", RULE_SHAPE), canAnnounce: one("canAnnounce", RULE_SHAPE), canQuote: one("canQuote", RULE_SHAPE) },
      [],
      GTS,
    ),
  ],
  [RULE, spec(InteractionRule, { automaticApproval: many("automaticApprovals", IRI), manualApproval: many("manualApprovals", IRI) }, [], GTS)],
  [SOURCE, spec(Source, { content: many("contents", { kind: "text" }), mediaType: one("mediaType", { kind: "string" }) })],
]);

/** The activity types a document may have at its top. */
export const ACTIVITY_TYPES: ReadonlySet<string> = new Set(
  ["Create", "Update", "Like", "Announce", "Follow", "Block", "Accept", "Reject", "Undo", "Delete"].map((name) => AS + name),
);

/**
 * Properties servers send that Fedify's vocabulary does not read for any of
 * the types above (checked against the IRIs its generated parsers look up),
 * so its parse drops them: Mastodon's OStatus leftovers, blurhash and focal
 * point, Misskey's copies of the content and its reaction.
 */
export const IGNORED_PROPERTIES: ReadonlySet<string> = new Set([
  "http://ostatus.org#atomUri",
  "http://ostatus.org#inReplyToAtomUri",
  "http://ostatus.org#conversation",
  "http://joinmastodon.org/ns#blurhash",
  "http://joinmastodon.org/ns#focalPoint",
  "https://misskey-hub.net/ns#_misskey_content",
  "https://misskey-hub.net/ns#_misskey_summary",
  "https://misskey-hub.net/ns#_misskey_reaction",
  // GoToSocial's names for a rule's lists before automaticApproval and manualApproval.
  `${GTS}always`,
  `${GTS}approvalRequired`,
]);
