import { Collection, type Emoji, Hashtag, LanguageString, Mention, Note } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { localReblogUri, localStatusUrls, parseJsonArray, tagUrl } from "../../mastodon/serializers/status.js";
import type { AccountRow, Database, MediaAttachmentRow, PollRow, StatusRow } from "../../ports/storage-schema.js";
import { instantOf } from "../../platform/federation/instant.js";
import { findMediaOfStatuses } from "../media/media-attachments-store.js";
import { listStatusTagNames } from "./federated-statuses-store.js";
import { findPollsOfStatuses } from "./status-object-reads-store.js";
import type { MediaUrls } from "../federation/actors.js";
import { MediaDocument } from "./media-document.js";
import { type NoteContext, actorUriOf, addressing, flag, followersUriOf, loadNoteContext, statusUriOf } from "./notes.js";
import { StatusAnnounce, StatusCreate, StatusNote, StatusQuestion } from "../federation/peer-json-ld.js";
import { repliesCollectionOf } from "./status-paths.js";
import { localEmojiTagsOfEach } from "../emojis/emoji-tags.js";
import { quotePropertiesOf } from "./quote-objects.js";

/**
 * The one builder of the ActivityPub objects of local statuses: the Note (a
 * Question with a poll) and the Create of it, and the Announce of a boost.
 * Whatever path a status leaves by (delivered to followers, fetched by its
 * id, listed in an outbox or the featured collection, fetched by its
 * activity's id), it is built here from the same rows, so every copy says
 * the same.
 */

export interface StatusObjectSource {
  readonly db: Kysely<Database>;
  readonly origin: string;
  readonly media: MediaUrls | null;
}

/** What the objects of a batch of statuses are made of beyond the rows, read in a few queries for the whole batch. */
interface StatusParts {
  readonly notes: NoteContext;
  readonly tags: ReadonlyMap<string, readonly string[]>;
  readonly attachments: ReadonlyMap<string, readonly MediaDocument[]>;
  readonly polls: ReadonlyMap<string, PollRow>;
  /** The `Emoji` tags of the local custom emoji each local status uses. */
  readonly emojis: ReadonlyMap<string, readonly Emoji[]>;
}

export type StatusObject = StatusNote | StatusQuestion;

export interface StatusObjects {
  /** The status as a Note, or a Question when it has a poll; null for a boost or when its author is unknown. */
  objectOf(status: StatusRow): StatusObject | null;
  /** The activity a status appears as: the Create of its object, or the Announce of the status it boosts. */
  activityOf(status: StatusRow): StatusCreate | StatusAnnounce | null;
}

/** Loads what the objects of these statuses need and returns their builder. */
export async function loadStatusObjects(source: StatusObjectSource, rows: readonly StatusRow[]): Promise<StatusObjects> {
  const originals = rows.filter((row) => row.reblog_of_id === null).map((row) => row.id);
  const [notes, tags, media, polls] = await Promise.all([
    loadNoteContext(source.db, rows),
    listStatusTagNames(source.db, originals),
    findMediaOfStatuses(source.db, originals),
    findPollsOfStatuses(source.db, originals),
  ]);
  const [attachments, emojis] = await Promise.all([attachmentsOf(source.media, media), emojiTagsOf(source, rows, polls)]);
  const parts: StatusParts = { notes, tags, attachments, polls, emojis };
  return {
    objectOf: (status) => objectOf(source.origin, status, parts),
    activityOf: (status) => activityOf(source.origin, status, parts),
  };
}

/** The one status's object, or null: what the Note dispatcher serves and what an Update carries. */
export async function statusObjectOf(source: StatusObjectSource, status: StatusRow): Promise<StatusObject | null> {
  return (await loadStatusObjects(source, [status])).objectOf(status);
}

/** The emoji tags of each local status, read with one query for the page (none when no status names a shortcode). */
async function emojiTagsOf(
  source: StatusObjectSource,
  rows: readonly StatusRow[],
  polls: ReadonlyMap<string, PollRow>,
): Promise<Map<string, readonly Emoji[]>> {
  const local = rows.filter((row) => row.reblog_of_id === null && flag(row.local));
  const tags = await localEmojiTagsOfEach(
    source.db,
    source.origin,
    local.map((row) => [row.spoiler_text, row.content, ...parseJsonArray<string>(polls.get(row.id)?.options ?? null)]),
  );
  return new Map(local.map((row, index) => [row.id, tags[index] ?? []]));
}

function numberOr(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The size and focus Mastodon's `meta` holds for an attachment, where they are known. */
function metaOf(row: MediaAttachmentRow): { width: number | null; height: number | null; focus: [number, number] | null } {
  let meta: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.meta);
    if (typeof parsed === "object" && parsed !== null) meta = parsed as Record<string, unknown>;
  } catch {
    // A meta that does not parse says nothing of the size.
  }
  const original = (typeof meta.original === "object" && meta.original !== null ? meta.original : {}) as Record<string, unknown>;
  const focus = (typeof meta.focus === "object" && meta.focus !== null ? meta.focus : {}) as Record<string, unknown>;
  const x = numberOr(focus.x);
  const y = numberOr(focus.y);
  return { width: numberOr(original.width), height: numberOr(original.height), focus: x !== null && y !== null ? [x, y] : null };
}

async function attachmentsOf(media: MediaUrls | null, rows: readonly MediaAttachmentRow[]): Promise<Map<string, MediaDocument[]>> {
  const result = new Map<string, MediaDocument[]>();
  if (!media || rows.length === 0) return result;
  const urls = await media.publicUrls(rows.map((row) => row.id));
  for (const row of rows) {
    const found = urls.get(row.id);
    // Not processed yet (or failed): there is no file to point to.
    if (!found || row.status_id === null) continue;
    const { width, height, focus } = metaOf(row);
    const document = new MediaDocument({
      url: new URL(found.url),
      ...(row.content_type && { mediaType: row.content_type }),
      ...(row.description && { name: row.description }),
      ...(width !== null && { width }),
      ...(height !== null && { height }),
      blurhash: row.blurhash,
      focalPoint: focus,
    });
    result.set(row.status_id, [...(result.get(row.status_id) ?? []), document]);
  }
  return result;
}

/** The content, and the same under its language when the status has one (`contentMap`). */
function contentsOf(status: StatusRow): (string | LanguageString)[] {
  if (!status.language) return [status.content];
  try {
    return [status.content, new LanguageString(status.content, status.language)];
  } catch {
    // A language tag that is no valid BCP 47 tag (stored from elsewhere) is left out rather than fail the object.
    return [status.content];
  }
}

function mentionsOf(origin: string, status: StatusRow, parts: StatusParts): { uris: string[]; tags: Mention[] } {
  const uris: string[] = [];
  const tags: Mention[] = [];
  for (const account of parts.notes.mentions.get(status.id) ?? []) {
    const href = actorUriOf(origin, account);
    if (href === null) continue;
    const name = account.domain === null ? `@${account.username}@${new URL(origin).host}` : `@${account.username}@${account.domain}`;
    uris.push(href);
    tags.push(new Mention({ href: new URL(href), name }));
  }
  return { uris, tags };
}

function replyTargetOf(origin: string, status: StatusRow, parts: StatusParts): URL | null {
  const parent = status.in_reply_to_id ? parts.notes.statuses.get(status.in_reply_to_id) : undefined;
  const parentAuthor = parent ? parts.notes.accounts.get(parent.account_id) : undefined;
  const uri = parent && parentAuthor ? statusUriOf(origin, parent, parentAuthor) : null;
  return uri ? new URL(uri) : null;
}

function objectOf(origin: string, status: StatusRow, parts: StatusParts): StatusObject | null {
  if (status.reblog_of_id !== null) return null;
  const author = parts.notes.accounts.get(status.account_id);
  if (!author) return null;
  const id = statusUriOf(origin, status, author);
  const actor = actorUriOf(origin, author);
  if (id === null || actor === null) return null;
  const mentions = mentionsOf(origin, status, parts);
  const { to, cc } = addressing(status.visibility, followersUriOf(origin, author.username), mentions.uris);
  const hashtags = (parts.tags.get(status.id) ?? []).map(
    (name) => new Hashtag({ name: `#${name}`, href: new URL(tagUrl(origin, name.toLowerCase())) }),
  );
  const values = {
    id: new URL(id),
    attribution: new URL(actor),
    contents: contentsOf(status),
    summary: status.spoiler_text === "" ? null : status.spoiler_text,
    sensitive: flag(status.sensitive),
    published: instantOf(status.created_at),
    ...(status.edited_at && { updated: instantOf(status.edited_at) }),
    url: new URL(flag(status.local) ? localStatusUrls(origin, author.username, status.id).url : (status.url ?? id)),
    tos: to,
    ccs: cc,
    replyTarget: replyTargetOf(origin, status, parts),
    tags: [...mentions.tags, ...hashtags, ...(parts.emojis.get(status.id) ?? [])],
    attachments: [...(parts.attachments.get(status.id) ?? [])],
    ...(flag(status.local) && { replies: repliesCollectionOf(id) }),
    ...quotePropertiesOf(origin, status, parts.notes),
  };
  const poll = parts.polls.get(status.id);
  if (!poll) return new StatusNote(values);
  const tallies = parseJsonArray<number>(poll.cached_tallies);
  const options = parseJsonArray<string>(poll.options).map(
    (title, index) => new Note({ name: title, replies: new Collection({ totalItems: tallies[index] ?? 0 }) }),
  );
  return new StatusQuestion({
    ...values,
    ...(flag(poll.multiple) ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    ...(poll.expires_at && { endTime: instantOf(poll.expires_at) }),
    ...(poll.closed_at && { closed: instantOf(poll.closed_at) }),
    voters: poll.voters_count,
  });
}

/** The Create of a status's object: the activity id is the object's with `/activity`, as its dispatcher serves it. */
export function createOf(object: StatusObject, status: Pick<StatusRow, "created_at">): StatusCreate | null {
  if (!object.id) return null;
  return new StatusCreate({
    id: new URL(`${object.id.href}/activity`),
    actor: object.attributionId,
    object,
    published: instantOf(status.created_at),
    tos: object.toIds,
    ccs: object.ccIds,
  });
}

/** Who a boost is addressed to: as its visibility says, and the boosted status's author in cc, as Mastodon does. */
export function boostAddressing(
  origin: string,
  booster: Pick<AccountRow, "username">,
  visibility: string,
  boostedAuthor: string | null,
): { to: URL[]; cc: URL[] } {
  return addressing(visibility, followersUriOf(origin, booster.username), boostedAuthor ? [boostedAuthor] : []);
}

function announceOf(origin: string, status: StatusRow, parts: StatusParts): StatusAnnounce | null {
  const author = parts.notes.accounts.get(status.account_id);
  const actor = author ? actorUriOf(origin, author) : null;
  const original = status.reblog_of_id ? parts.notes.statuses.get(status.reblog_of_id) : undefined;
  const originalAuthor = original ? parts.notes.accounts.get(original.account_id) : undefined;
  const object = original && originalAuthor ? statusUriOf(origin, original, originalAuthor) : null;
  if (!author || actor === null || object === null || !originalAuthor) return null;
  const { to, cc } = boostAddressing(origin, author, status.visibility, actorUriOf(origin, originalAuthor));
  return new StatusAnnounce({
    id: new URL(localReblogUri(origin, author.username, status.id)),
    actor: new URL(actor),
    object: new URL(object),
    published: instantOf(status.created_at),
    tos: to,
    ccs: cc,
  });
}

function activityOf(origin: string, status: StatusRow, parts: StatusParts): StatusCreate | StatusAnnounce | null {
  if (status.reblog_of_id !== null) return announceOf(origin, status, parts);
  const object = objectOf(origin, status, parts);
  return object ? createOf(object, status) : null;
}
