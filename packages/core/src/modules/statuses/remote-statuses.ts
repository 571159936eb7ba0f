import type { Context } from "@fedify/fedify";
import {
  Article,
  Collection,
  Document,
  Event,
  Hashtag,
  Image,
  Link,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Page,
  Question,
  Video,
} from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { NewRemotePost } from "../../platform/events/domain-events.js";
import { FIRST_FOLLOWERS_LIMIT, rememberFirstLocalFollowers } from "../timelines/new-status-followers.js";
import type { KithServices } from "../core-services.js";
import { normalizeTag } from "./text-formatter.js";
import { findLocalActorAccount, findStatusOfLocalActor } from "../federation/federation-reads-store.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import type { FollowerReader } from "../timelines/fan-out-store.js";
import { findStatusByUri, hasEdits } from "./federated-statuses-store.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import {
  bumpStatusCounter,
  ensureTags,
  insertCountedStatusReadingFollowers,
  replaceMentions,
  replaceStatusTags,
} from "./statuses-store.js";
import type { AccountRow, Database, StatusRow, Visibility } from "../../ports/storage-schema.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { sanitizeHtml, textOfHtml } from "../../platform/federation/html-sanitizer.js";
import { assertNothingRefused, readProperty } from "../../platform/federation/inbox-request-pass.js";
import { localNoteAt } from "./local-note-uris.js";
import { flag } from "./notes.js";
import { blurhashesIn, documentOf } from "../federation/raw-documents.js";
import { rememberRemoteEmojis, remoteEmojisOf } from "../emojis/remote-emojis.js";
import { incomingQuoteState, statedQuotePolicy } from "./incoming-quotes.js";
import { type ConvertedObject, isConvertedObject, quotedUriOf, recordRemoteEvent, titledContent } from "./converted-objects.js";

const logger = getLogger(["federation", "posts"]);

/** What storing remote statuses needs. */
export interface RemoteStatusDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock" | "config">;
  readonly services: Pick<KithServices, "events" | "media" | "domainPolicy" | "batchedWrites" | "searchEntries">;
}

/**
 * The kinds of objects Kith keeps as statuses: notes, polls and articles, and
 * the objects shown as a post with their title and link (Lemmy's Page, an
 * Event; converted-objects.ts).
 */
export type IncomingStatusObject = Note | Question | Article | ConvertedObject;

export function isIncomingStatusObject(object: unknown): object is IncomingStatusObject {
  return object instanceof Note || object instanceof Question || object instanceof Article || isConvertedObject(object);
}

/** True when the object's id is on the same host as its author's: no one speaks for another server's objects. */
export function sameOrigin(a: URL | null | undefined, b: URL | null | undefined): boolean {
  return !!a && !!b && a.protocol === b.protocol && a.host === b.host;
}

function isoOf(value: unknown, fallback: string): string {
  if (value === null || value === undefined) return fallback;
  // A Temporal.Instant (Fedify's dates) knows its time; printing it first is slow in the polyfill.
  const epoch = (value as { epochMilliseconds?: unknown }).epochMilliseconds;
  const time = typeof epoch === "number" ? epoch : Date.parse(String(value));
  return Number.isFinite(time) ? new Date(time).toISOString() : fallback;
}

function textOf(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

/** Mastodon's rule: public when addressed to everyone, unlisted when everyone is in cc, private to followers, else direct. */
export function visibilityOf(object: { toIds: URL[]; ccIds: URL[] }, followers: URL | null): Visibility {
  const has = (list: URL[], uri: string) => list.some((item) => item.href === uri || item.href === "as:Public" || item.href === "Public");
  if (has(object.toIds, PUBLIC_COLLECTION.href)) return "public";
  if (has(object.ccIds, PUBLIC_COLLECTION.href)) return "unlisted";
  const all = [...object.toIds, ...object.ccIds];
  if (followers && all.some((item) => item.href === followers.href)) return "private";
  if (all.some((item) => item.pathname.endsWith("/followers"))) return "private";
  return "direct";
}

/** A local post a URI names, if it is one of ours. */
export async function localStatusAt(ctx: Context<FederationContextData>, db: Kysely<Database>, uri: URL | null): Promise<StatusRow | null> {
  const note = uri && localNoteAt(ctx, uri);
  if (!note) return null;
  const status = await findStatusOfLocalActor(db, note.identifier, note.id);
  return status && flag(status.local) ? status : null;
}

/** The post a URI names: one of ours, or a remote one already stored. */
export async function knownStatusAt(ctx: Context<FederationContextData>, db: Kysely<Database>, uri: URL | null): Promise<StatusRow | null> {
  if (!uri) return null;
  return (await localStatusAt(ctx, db, uri)) ?? (await findStatusByUri(db, uri.href));
}

/** The accounts a status mentions that Kith knows: local ones by actor URI, remote ones already stored. */
async function mentionedAccounts(ctx: Context<FederationContextData>, db: Kysely<Database>, tags: readonly unknown[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const tag of tags) {
    if (!(tag instanceof Mention) || !tag.href) continue;
    const parsed = ctx.parseUri(tag.href);
    const account =
      parsed?.type === "actor" ? await findLocalActorAccount(db, parsed.identifier) : await findAccountByUri(db, tag.href.href);
    if (account && account.suspended_at === null) ids.add(account.id);
  }
  return [...ids];
}

function hashtagsOf(tags: readonly unknown[]): { name: string; displayName: string }[] {
  const seen = new Map<string, string>();
  for (const tag of tags) {
    if (!(tag instanceof Hashtag)) continue;
    const display = textOf(tag.name).replace(/^#/, "").trim();
    if (display && /^[\p{L}\p{N}_]+$/u.test(display) && !seen.has(normalizeTag(display))) seen.set(normalizeTag(display), display);
  }
  return [...seen].map(([name, displayName]) => ({ name, displayName }));
}

async function listOf<T>(items: AsyncIterable<T>, limit: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

interface PollFields {
  readonly options: string[];
  readonly tallies: number[];
  readonly multiple: boolean;
  readonly votersCount: number;
  readonly expiresAt: string | null;
  readonly closedAt: string | null;
}

async function pollOf(ctx: Context<FederationContextData>, question: Question): Promise<PollFields | null> {
  const loader = { documentLoader: ctx.documentLoader, suppressError: true };
  const exclusive = await readProperty(ctx, (options) => listOf(question.getExclusiveOptions(options), 20));
  const inclusive = exclusive.length > 0 ? [] : await readProperty(ctx, (options) => listOf(question.getInclusiveOptions(options), 20));
  const options = exclusive.length > 0 ? exclusive : inclusive;
  if (options.length < 1) return null;
  const tallies: number[] = [];
  for (const option of options) {
    const replies = option instanceof Note ? await option.getReplies(loader).catch(() => null) : null;
    tallies.push(replies instanceof Collection ? (replies.totalItems ?? 0) : 0);
  }
  const closed = question.closed;
  return {
    options: options.map((option) => textOf(option.name)),
    tallies,
    multiple: exclusive.length === 0,
    votersCount: question.voters ?? tallies.reduce((sum, n) => sum + n, 0),
    expiresAt: question.endTime ? isoOf(question.endTime, "") || null : null,
    closedAt: closed instanceof Date || (closed && typeof closed === "object") ? isoOf(closed, "") || null : null,
  };
}

/** What a status holds, read from its object. */
interface IncomingStatusFields {
  readonly content: string;
  readonly text: string;
  readonly spoilerText: string;
  readonly sensitive: boolean;
  readonly visibility: Visibility;
  readonly url: string | null;
  readonly language: string | null;
  readonly published: string;
  readonly updated: string | null;
  readonly tags: unknown[];
  readonly attachments: unknown[];
  /** The post it quotes (FEP-044f `quote`, `quoteUrl`, `_misskey_quote`), if it does. */
  readonly quoteUri: string | null;
}

async function fieldsOf(ctx: Context<FederationContextData>, object: IncomingStatusObject, author: AccountRow, now: string): Promise<IncomingStatusFields> {
  const attachments = await readProperty(ctx, (options) => listOf(object.getAttachments(options), 16));
  const content = sanitizeHtml(isConvertedObject(object) ? titledContent(object, attachments) : textOf(object.content));
  const url = object.url instanceof URL ? object.url.href : object.url instanceof Link ? (object.url.href?.href ?? null) : null;
  const language = object.contents.find((value) => typeof value === "object" && value !== null && "locale" in value);
  const followers = author.uri ? new URL(`${author.uri}/followers`) : null;
  return {
    content,
    text: textOfHtml(content),
    spoilerText: textOf(object.summary),
    sensitive: object.sensitive ?? false,
    visibility: visibilityOf(object, followers),
    url: url && /^https?:/.test(url) ? url : null,
    language: language && typeof language === "object" && "locale" in language ? String(language.locale.baseName) : null,
    published: isoOf(object.published, now),
    updated: object.updated ? isoOf(object.updated, now) : null,
    tags: await readProperty(ctx, (options) => listOf(object.getTags(options), 64)),
    attachments,
    quoteUri: quotedUriOf(object),
  };
}

async function attachMedia(
  env: RemoteStatusDeps,
  trx: Kysely<Database>,
  author: AccountRow,
  statusId: string,
  fields: IncomingStatusFields,
  blurhashes: ReadonlyMap<string, string>,
) {
  for (const attachment of fields.attachments) {
    // A Page is a Document to Fedify, but never a file.
    if (attachment instanceof Page) continue;
    if (!(attachment instanceof Document || attachment instanceof Image || attachment instanceof Video)) continue;
    const url = attachment.url instanceof URL ? attachment.url : attachment.url instanceof Link ? attachment.url.href : null;
    if (!url || !/^https?:$/.test(url.protocol)) continue;
    const mediaType = attachment.mediaType ?? "";
    const type = mediaType.startsWith("video/") ? "video" : mediaType.startsWith("audio/") ? "audio" : "image";
    try {
      const media = await env.services.media.registerRemote(
        {
          accountId: author.id,
          remoteUrl: url.href,
          type,
          description: attachment.name ? textOf(attachment.name) : null,
          blurhash: blurhashes.get(url.href) ?? null,
        },
        trx,
      );
      await trx.updateTable("media_attachments").set({ status_id: statusId }).where("id", "=", media.id).execute();
    } catch (error) {
      logger.debug("Skipped an attachment of {status}: {error}", { status: statusId, error });
    }
  }
}

/** The accounts a status mentions and the names of its hashtags, as written. */
interface StatusRelations {
  readonly mentionedAccountIds: readonly string[];
  readonly tagNames: readonly string[];
}

async function writeRelations(
  ctx: Context<FederationContextData>,
  env: RemoteStatusDeps,
  trx: Kysely<Database>,
  author: AccountRow,
  statusId: string,
  fields: IncomingStatusFields,
  now: string,
  options: { fresh?: boolean } = {},
): Promise<StatusRelations> {
  const mentionedAccountIds = await mentionedAccounts(ctx, trx, fields.tags);
  // The emojis it names are kept as its server's, so the status shows them (and the author's next statuses find them).
  if (author.domain !== null) await rememberRemoteEmojis(trx, env.deps, await remoteEmojisOf(fields.tags, author.domain));
  // A status just inserted has no mentions or tags to replace.
  await replaceMentions(trx, statusId, mentionedAccountIds, now, options);
  const tags = hashtagsOf(fields.tags);
  const tagIds = await ensureTags(trx, tags, () => env.deps.ids.next("tag"), now);
  await replaceStatusTags(trx, statusId, [...tagIds.values()], options);
  return { mentionedAccountIds, tagNames: tags.map((tag) => tag.name) };
}

async function writePoll(env: RemoteStatusDeps, trx: Kysely<Database>, statusId: string, accountId: string, poll: PollFields, now: string) {
  const existing = await trx.selectFrom("polls").select(["id", "options"]).where("status_id", "=", statusId).executeTakeFirst();
  const values = {
    cached_tallies: JSON.stringify(poll.tallies),
    voters_count: poll.votersCount,
    votes_count: poll.tallies.reduce((sum, n) => sum + n, 0),
    expires_at: poll.expiresAt,
    closed_at: poll.closedAt,
    updated_at: now,
  };
  if (existing && existing.options === JSON.stringify(poll.options)) {
    await trx.updateTable("polls").set(values).where("id", "=", existing.id).execute();
    return;
  }
  if (existing) {
    await trx.deleteFrom("poll_votes").where("poll_id", "=", existing.id).execute();
    await trx.deleteFrom("polls").where("id", "=", existing.id).execute();
  }
  await trx
    .insertInto("polls")
    .values({
      id: env.deps.ids.next("poll"),
      status_id: statusId,
      account_id: accountId,
      options: JSON.stringify(poll.options),
      multiple: writeFlag(poll.multiple),
      created_at: now,
      ...values,
    })
    .execute();
}

/**
 * Stores a remote status (the caller has checked that its author sent or
 * vouches for it): sanitised content, visibility from its addressing, the
 * reply it answers when known, mentions of known accounts, hashtags,
 * attachment metadata (files are fetched when first asked for) and its
 * poll. Returns the status's id, or that of the status already stored under the
 * same URI (`storedId`, when the caller read it: null for none). `status.created`
 * goes out, so timelines and notifications follow. `source` is the JSON the
 * status came in (its activity's), read for what Fedify's vocabulary drops
 * (raw-documents.ts); Fedify forgets it once it fetched anything for the
 * activity, so the caller takes it first.
 */
export async function storeRemoteStatus(
  ctx: Context<FederationContextData>,
  env: RemoteStatusDeps,
  object: IncomingStatusObject,
  author: AccountRow,
  storedId?: string | null,
  options: { readonly source?: unknown } = {},
): Promise<string | null> {
  const db = env.deps.storage.db;
  if (!object.id) return null;
  const existing = storedId !== undefined ? storedId : ((await findStatusByUri(db, object.id.href))?.id ?? null);
  if (existing) return existing;
  const now = env.deps.clock.now().toISOString();
  const fields = await fieldsOf(ctx, object, author, now);
  const parent = await knownStatusAt(ctx, db, object.replyTargetId);
  // A quoted status is shown when it is known here; its URI is kept either way.
  const quoted = fields.quoteUri ? await knownStatusAt(ctx, db, new URL(fields.quoteUri)) : null;
  const poll = object instanceof Question ? await pollOf(ctx, object) : null;
  // Tags, attachments or poll options that could not be fetched in a request's pass: a worker stores the status.
  assertNothingRefused(ctx);
  const id = env.deps.ids.next("status");
  const conversationId = parent?.conversation_id ?? env.deps.ids.next("conversation");
  let stored: { readonly relations: StatusRelations; readonly followers: FollowerReader[] | null };
  try {
    // Committed with the other activities of the same moment: a commit costs more than the status's rows.
    stored = await env.services.batchedWrites.transaction(async (trx) => {
      const row = {
        id,
        account_id: author.id,
        uri: object.id?.href ?? null,
        url: fields.url,
        local: writeFlag(false),
        in_reply_to_id: parent?.id ?? null,
        in_reply_to_account_id: parent?.account_id ?? null,
        conversation_id: conversationId,
        text: fields.text,
        content: fields.content,
        spoiler_text: fields.spoilerText,
        sensitive: writeFlag(fields.sensitive || fields.spoilerText.length > 0),
        visibility: fields.visibility,
        language: fields.language,
        created_at: fields.published,
        updated_at: now,
        edited_at: fields.updated && fields.updated !== fields.published ? fields.updated : null,
        quote_uri: fields.quoteUri,
        quote_id: quoted?.id ?? null,
        ...incomingQuoteState(object, quoted, fields.quoteUri),
        // Mastodon and most servers name the followers collection so; one named otherwise reads as asking to be asked.
        quote_policy: statedQuotePolicy(object, author.uri ? `${author.uri}/followers` : null),
      };
      const followers = await insertCountedStatusReadingFollowers(trx, row, fields.published, FIRST_FOLLOWERS_LIMIT);
      const relations = await writeRelations(ctx, env, trx, author, id, fields, now, { fresh: true });
      if (fields.attachments.length > 0) await attachMedia(env, trx, author, id, fields, blurhashesIn([documentOf(object), options.source]));
      if (object instanceof Event) await recordRemoteEvent(trx, id, object, fields.url, now);
      if (poll) await writePoll(env, trx, id, author.id, poll, now);
      if (parent) await bumpStatusCounter(trx, parent.id, "replies_count", 1);
      return { relations, followers };
    });
  } catch (error) {
    // The same status arriving twice at once (shared and personal inbox): the second insert loses on the unique URI.
    const raced = await findStatusByUri(db, object.id.href);
    if (raced) return raced.id;
    throw error;
  }
  // Its full-text entry waits for others' (SQLite: deferred-search-entries.ts).
  env.services.searchEntries.committed();
  // What the reactions need of the status goes with the event, so none of them reads it back.
  const remoteStatus: NewRemotePost | undefined =
    author.domain === null
      ? undefined
      : {
          authorDomain: author.domain,
          visibility: fields.visibility,
          inReplyToId: parent?.id ?? null,
          inReplyToAccountId: parent?.account_id ?? null,
          conversationId,
          createdAt: fields.published,
          tagNames: stored.relations.tagNames,
          mentionedAccountIds: stored.relations.mentionedAccountIds,
          content: fields.content,
        };
  if (remoteStatus && stored.followers) rememberFirstLocalFollowers(remoteStatus, stored.followers);
  await env.services.events.emit({ type: "status.created", statusId: id, accountId: author.id, remoteStatus });
  return id;
}

/** Applies an edit of a stored remote status, keeping the versions in `status_edits`. False when nothing was stored to edit. */
export async function updateRemotePost(
  ctx: Context<FederationContextData>,
  env: RemoteStatusDeps,
  object: IncomingStatusObject,
  current: StatusRow,
  author: AccountRow,
): Promise<boolean> {
  const now = env.deps.clock.now().toISOString();
  const fields = await fieldsOf(ctx, object, author, now);
  const poll = object instanceof Question ? await pollOf(ctx, object) : null;
  assertNothingRefused(ctx);
  const editedAt = fields.updated ?? now;
  // An older or repeated Update changes nothing (activities may arrive out of order or twice).
  if (current.edited_at !== null && Date.parse(editedAt) <= Date.parse(current.edited_at) && !poll) return false;
  const textChanged = fields.content !== current.content || fields.spoilerText !== current.spoiler_text;
  await env.deps.storage.transaction(async (trx) => {
    if (textChanged) {
      const version = (row: { text: string; content: string; spoiler_text: string; sensitive: boolean }, at: string) =>
        trx
          .insertInto("status_edits")
          .values({
            id: env.deps.ids.next("statusEdit"),
            status_id: current.id,
            account_id: author.id,
            text: row.text,
            content: row.content,
            spoiler_text: row.spoiler_text,
            sensitive: writeFlag(row.sensitive),
            created_at: at,
          })
          .execute();
      if (!(await hasEdits(trx, current.id))) await version({ ...current, sensitive: flag(current.sensitive) }, current.created_at);
      await version(
        { text: fields.text, content: fields.content, spoiler_text: fields.spoilerText, sensitive: fields.sensitive },
        editedAt,
      );
      await trx
        .updateTable("statuses")
        .set({
          text: fields.text,
          content: fields.content,
          spoiler_text: fields.spoilerText,
          sensitive: writeFlag(fields.sensitive || fields.spoilerText.length > 0),
          edited_at: editedAt,
          updated_at: now,
        })
        .where("id", "=", current.id)
        .execute();
      await writeRelations(ctx, env, trx, author, current.id, fields, now);
    }
    if (poll) await writePoll(env, trx, current.id, author.id, poll, now);
  });
  if (textChanged) await env.services.events.emit({ type: "status.updated", statusId: current.id, accountId: author.id });
  return textChanged || poll !== null;
}
