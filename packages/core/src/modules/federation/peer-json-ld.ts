import { Announce, type Object as APObject, Create, Group, Note, PUBLIC_COLLECTION, Person, Question, Service, Update } from "@fedify/fedify/vocab";

/**
 * The JSON-LD that statuses and their activities are written as for other
 * servers. Most of them (Mastodon first) read the compacted JSON as plain
 * JSON and never expand it, so what they look for must appear under the
 * names they know: `blurhash` and `focalPoint` on attachments, `votersCount`
 * on polls. Fedify's own contexts leave those out (its vocabulary has no
 * `blurhash`), so Kith compacts with a context of its own naming them,
 * whichever path the object leaves by: delivered, fetched, or listed in a
 * collection.
 */

type JsonLdOptions = NonNullable<Parameters<APObject["toJsonLd"]>[0]>;
/** Fedify types a context as flat string maps; term definitions with `@type` or `@container` are valid JSON-LD too. */
type JsonLdContext = JsonLdOptions["context"];

export const TOOT = "http://joinmastodon.org/ns#";

/** The terms beyond ActivityStreams that Kith's statuses use, as Mastodon's context defines them. */
export const KITH_TERMS = {
  toot: TOOT,
  sensitive: "as:sensitive",
  Hashtag: "as:Hashtag",
  Emoji: "toot:Emoji",
  blurhash: "toot:blurhash",
  focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
  votersCount: { "@id": "toot:votersCount", "@type": "http://www.w3.org/2001/XMLSchema#nonNegativeInteger" },
  // Quote posts (FEP-044f) and who may quote (GoToSocial's interaction policies), as Mastodon 4.5 names them.
  quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" },
  quoteUrl: "as:quoteUrl",
  _misskey_quote: "https://misskey-hub.net/ns#_misskey_quote",
  quoteAuthorization: { "@id": "https://w3id.org/fep/044f#quoteAuthorization", "@type": "@id" },
  gts: "https://gotosocial.org/ns#",
  interactionPolicy: { "@id": "gts:interactionPolicy", "@type": "@id" },
  canQuote: { "@id": "gts:canQuote", "@type": "@id" },
  automaticApproval: { "@id": "gts:automaticApproval", "@type": "@id" },
  manualApproval: { "@id": "gts:manualApproval", "@type": "@id" },
} as const;

const OBJECT_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  "https://w3id.org/security/data-integrity/v1",
  KITH_TERMS,
] as unknown as JsonLdContext;
// Activities also carry Linked Data signatures, whose terms come from identity/v1 (as in Fedify's own context).
const ACTIVITY_CONTEXT = [
  "https://w3id.org/identity/v1",
  "https://www.w3.org/ns/activitystreams",
  "https://w3id.org/security/data-integrity/v1",
  KITH_TERMS,
] as unknown as JsonLdContext;

const ADDRESSING = ["to", "cc", "bto", "bcc", "audience"] as const;
const SHORT_PUBLIC = new Set(["as:Public", "Public"]);

function spelledOut(value: unknown): unknown {
  if (typeof value === "string") return SHORT_PUBLIC.has(value) ? PUBLIC_COLLECTION.href : value;
  return Array.isArray(value) ? value.map(spelledOut) : value;
}

/**
 * The form Fedify gives an activity as it sends it (the public collection by
 * its full IRI, attachments always an array), given to the same object when
 * it is fetched too, so both read alike to servers that compare strings.
 */
function normalised(node: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...node };
  for (const key of ADDRESSING) if (key in result) result[key] = spelledOut(result[key]);
  if (result.attachment !== undefined && !Array.isArray(result.attachment)) result.attachment = [result.attachment];
  const object = result.object;
  if (typeof object === "object" && object !== null && !Array.isArray(object)) result.object = normalised(object as Record<string, unknown>);
  if (typeof result.interactionPolicy === "object" && result.interactionPolicy !== null) {
    result.interactionPolicy = policySpelledOut(result.interactionPolicy as Record<string, unknown>);
  }
  return result;
}

/** An interaction policy's approvals with the public collection by its full IRI, as servers reading plain JSON compare it. */
function policySpelledOut(policy: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(policy)) {
    if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
      result[key] = rule;
      continue;
    }
    const spelled: Record<string, unknown> = { ...(rule as Record<string, unknown>) };
    for (const list of ["automaticApproval", "manualApproval"]) if (list in spelled) spelled[list] = spelledOut(spelled[list]);
    result[key] = spelled;
  }
  return result;
}

/** Compacts with `context` unless the caller asked for the expanded form (an object nested in another) or a context of its own. */
async function compactedForPeers(
  options: JsonLdOptions,
  context: JsonLdContext,
  serialize: (options: JsonLdOptions) => Promise<unknown>,
): Promise<unknown> {
  if (options.format === "expand" || options.context != null) return serialize(options);
  const json = await serialize({ ...options, format: "compact", context });
  return typeof json === "object" && json !== null && !Array.isArray(json) ? normalised(json as Record<string, unknown>) : json;
}

/** A status without a poll. */
export class StatusNote extends Note {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return compactedForPeers(options, OBJECT_CONTEXT, (given) => super.toJsonLd(given));
  }
}

/** A status with a poll. */
export class StatusQuestion extends Question {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return compactedForPeers(options, OBJECT_CONTEXT, (given) => super.toJsonLd(given));
  }
}

export class StatusCreate extends Create {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return compactedForPeers(options, ACTIVITY_CONTEXT, (given) => super.toJsonLd(given));
  }
}

export class StatusUpdate extends Update {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return compactedForPeers(options, ACTIVITY_CONTEXT, (given) => super.toJsonLd(given));
  }
}

export class StatusAnnounce extends Announce {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return compactedForPeers(options, ACTIVITY_CONTEXT, (given) => super.toJsonLd(given));
  }
}

/**
 * An actor's document with its hashtags typed `Hashtag`: Fedify's actor
 * context has no such term and writes `as:Hashtag`, which servers reading
 * plain JSON do not recognise. The term is added to the context, so the
 * JSON-LD means the same.
 */
function withHashtagTerm(json: unknown): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const node = json as Record<string, unknown>;
  const tags = node.tag === undefined ? [] : Array.isArray(node.tag) ? node.tag : [node.tag];
  const renamed = tags.map((tag: unknown) =>
    typeof tag === "object" && tag !== null && (tag as Record<string, unknown>).type === "as:Hashtag" ? { ...tag, type: "Hashtag" } : tag,
  );
  if (!renamed.some((tag, index) => tag !== tags[index])) return json;
  const context = node["@context"];
  return {
    ...node,
    "@context": [...(Array.isArray(context) ? context : context === undefined ? [] : [context]), { Hashtag: "as:Hashtag" }],
    tag: Array.isArray(node.tag) ? renamed : renamed[0],
  };
}

async function actorForPeers(options: JsonLdOptions, serialize: (options: JsonLdOptions) => Promise<unknown>): Promise<unknown> {
  const json = await serialize(options);
  return options.format === "expand" ? json : withHashtagTerm(json);
}

export class LocalPerson extends Person {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return actorForPeers(options, (given) => super.toJsonLd(given));
  }
}

export class LocalService extends Service {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return actorForPeers(options, (given) => super.toJsonLd(given));
  }
}

export class LocalGroup extends Group {
  override toJsonLd(options: JsonLdOptions = {}): Promise<unknown> {
    return actorForPeers(options, (given) => super.toJsonLd(given));
  }
}
