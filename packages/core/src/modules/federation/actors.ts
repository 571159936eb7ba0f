import type { Context } from "@fedify/fedify";
import { Application, type Emoji, Endpoints, type Group, Hashtag, Image, type Person, PropertyValue, type Service } from "@fedify/fedify/vocab";
import { localAccountUrls } from "../../mastodon/serializers/account.js";
import { tagUrl } from "../../mastodon/serializers/status.js";
import { hashtags, normalizeTag } from "../statuses/text-formatter.js";
import type { AccountRow } from "../../ports/storage-schema.js";
import { flag } from "../statuses/notes.js";
import { LocalGroup, LocalPerson, LocalService } from "./peer-json-ld.js";
import { instantOf } from "../../platform/federation/instant.js";

export type LocalActor = Person | Service | Group | Application;

/** Public URLs of stored media, when the media service is present. */
export interface MediaUrls {
  publicUrls(ids: readonly string[]): Promise<ReadonlyMap<string, { readonly url: string; readonly contentType?: string | null }>>;
}

/** The identifier of the instance actor in actor URIs: not a possible username (usernames have no dots). */
export const INSTANCE_ACTOR_IDENTIFIER = "instance.actor";

interface ProfileField {
  readonly name: string;
  readonly value: string;
}

/** The texts of a profile that may name custom emojis: its name, bio and fields. */
export function profileTexts(account: AccountRow): string[] {
  return [account.display_name, account.note, ...fieldsOf(account).flatMap((field) => [field.name, field.value])];
}

function fieldsOf(account: AccountRow): ProfileField[] {
  try {
    const parsed: unknown = JSON.parse(account.fields);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (field): field is ProfileField =>
        typeof field === "object" && field !== null && typeof field.name === "string" && typeof field.value === "string",
    );
  } catch {
    return [];
  }
}

function urlList(json: string): URL[] {
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((value): value is string => typeof value === "string" && URL.canParse(value)).map((value) => new URL(value));
  } catch {
    return [];
  }
}

async function imageOf(media: MediaUrls | null, mediaId: string | null): Promise<Image | null> {
  if (!media || !mediaId) return null;
  const found = (await media.publicUrls([mediaId])).get(mediaId);
  return found ? new Image({ url: new URL(found.url), ...(found.contentType && { mediaType: found.contentType }) }) : null;
}

/** The hashtags of a profile's note, as Mastodon tags them on the actor (the text as written, else the HTML's text). */
function bioHashtagsOf(origin: string, account: AccountRow): Hashtag[] {
  const text = account.note_source ?? account.note.replace(/<[^>]*>/g, " ");
  return hashtags(text).map((name) => new Hashtag({ name: `#${name}`, href: new URL(tagUrl(origin, normalizeTag(name))) }));
}

export interface ActorInputs<T> {
  readonly ctx: Context<T>;
  readonly account: AccountRow;
  /** The URI of the account it moved to, if it did. */
  readonly movedTo: string | null;
  readonly media: MediaUrls | null;
  /** The `Emoji` tags of the custom emojis its name, bio and fields name (emoji-tags.ts). @default none */
  readonly emojiTags?: readonly Emoji[];
}

/**
 * A local account as its ActivityPub actor: Person, Service for bots, Group
 * for groups; with its profile, images, collections, inboxes and keys.
 */
export async function localActorOf<T>({ ctx, account, movedTo, media, emojiTags = [] }: ActorInputs<T>): Promise<LocalActor> {
  const identifier = account.username;
  const keys = await ctx.getActorKeyPairs(identifier);
  const [icon, image] = await Promise.all([imageOf(media, account.avatar_media_id), imageOf(media, account.header_media_id)]);
  const origin = new URL(ctx.getActorUri(identifier)).origin;
  const values = {
    id: ctx.getActorUri(identifier),
    preferredUsername: account.username,
    name: account.display_name === "" ? account.username : account.display_name,
    summary: account.note === "" ? null : account.note,
    url: new URL(localAccountUrls(origin, account.username).url),
    icon,
    image,
    manuallyApprovesFollowers: flag(account.locked),
    discoverable: flag(account.discoverable),
    indexable: flag(account.indexable),
    published: instantOf(account.created_at),
    inbox: ctx.getInboxUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    outbox: ctx.getOutboxUri(identifier),
    followers: ctx.getFollowersUri(identifier),
    following: ctx.getFollowingUri(identifier),
    featured: ctx.getFeaturedUri(identifier),
    featuredTags: ctx.getFeaturedTagsUri(identifier),
    tags: [...bioHashtagsOf(origin, account), ...emojiTags],
    aliases: urlList(account.also_known_as),
    successor: movedTo ? new URL(movedTo) : null,
    attachments: fieldsOf(account).map((field) => new PropertyValue({ name: field.name, value: field.value })),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((key) => key.multikey),
  };
  if (account.actor_type === "Service") return new LocalService(values);
  if (account.actor_type === "Group") return new LocalGroup(values);
  return new LocalPerson(values);
}

/**
 * The instance actor's preferredUsername: the origin's host name, without
 * its port. Mastodon named its own after its domain until a port in it
 * (`localhost:3000`) made the handle one no server keeps (a username has no
 * colon), and renames such an actor since; a host name is a username other
 * servers accept, and no local account's (local usernames have no dots).
 */
export function instanceActorUsername(origin: string): string {
  return new URL(origin).hostname;
}

/**
 * Whether a WebFinger username names the instance actor: its preferredUsername
 * (so `acct:<host name>@<host>` resolves to it), or the host with its port,
 * which it was named before.
 */
export function isInstanceActorHandle(username: string, origin: string): boolean {
  const name = username.toLowerCase();
  return name === instanceActorUsername(origin).toLowerCase() || name === new URL(origin).host.toLowerCase();
}

/**
 * The server's own actor, which signs fetches made on behalf of no one in
 * particular. As Mastodon's, it has an inbox and an (empty) outbox and no
 * followers, following or featured collections.
 */
export async function instanceActorOf<T>(ctx: Context<T>, title: string): Promise<Application> {
  const keys = await ctx.getActorKeyPairs(INSTANCE_ACTOR_IDENTIFIER);
  const origin = ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER).origin;
  return new Application({
    id: ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER),
    preferredUsername: instanceActorUsername(origin),
    name: title,
    summary: null,
    manuallyApprovesFollowers: true,
    discoverable: false,
    inbox: ctx.getInboxUri(INSTANCE_ACTOR_IDENTIFIER),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    outbox: ctx.getOutboxUri(INSTANCE_ACTOR_IDENTIFIER),
    url: new URL(ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER).origin),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((key) => key.multikey),
  });
}
