import type { Context } from "@fedify/fedify";
import { type Activity, Announce, Create, Like } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { type LikedLocalPost, findAccountByUri, findSenderWithChecks } from "./federation-writes-store.js";
import type { AccountRow, Database } from "../../ports/storage-schema.js";
import { localNoteAt } from "../statuses/local-note-uris.js";
import { encodeKey } from "../../platform/federation/sql-kv-store.js";
import { tombstoneKey } from "../../platform/federation/tombstones.js";

/** What reads our statuses' URIs: an inbox listener's context. */
export type LocalUris = Pick<Context<unknown>, "origin" | "canonicalOrigin" | "parseUri">;

interface StoredSender {
  readonly account: AccountRow | null;
  /** What was read with the account of the id the listener checks; null when nothing was. */
  readonly checked: {
    readonly uri: string;
    readonly tombstoned: boolean;
    readonly postId: string | null;
    /** A Like's object, when it is one of our statuses' URIs, and that status (null: none is stored there). */
    readonly liked: { readonly uri: string; readonly post: LikedLocalPost | null } | null;
  } | null;
}

const senders = new WeakMap<Activity, Promise<StoredSender>>();

/**
 * The stored account of an activity's actor (null when unknown), read once
 * per activity: the step before the inbox listeners (which refreshes a
 * stale sender) and the listener handling the activity ask for the same
 * row. Code that changes the account reads it anew.
 */
export async function storedSenderOf(ctx: LocalUris, db: Kysely<Database>, activity: Activity, now: Date): Promise<AccountRow | null> {
  return (await readOnce(ctx, db, activity, now)).account;
}

/**
 * Whether `uri` has a tombstone, when it was read with the activity's
 * sender; undefined when it was not (an unknown sender, another id), and the
 * caller reads it from the key-value store.
 */
export async function tombstoneReadWithSender(
  ctx: LocalUris,
  db: Kysely<Database>,
  activity: Activity,
  uri: URL,
  now: Date,
): Promise<boolean | undefined> {
  const { checked } = await readOnce(ctx, db, activity, now);
  return checked?.uri === uri.href ? checked.tombstoned : undefined;
}

/**
 * The id of the status stored at `uri` (null: none), when it was read with the
 * activity's sender; undefined when it was not, and the caller reads it.
 */
export async function postReadWithSender(
  ctx: LocalUris,
  db: Kysely<Database>,
  activity: Activity,
  uri: URL,
  now: Date,
): Promise<string | null | undefined> {
  const { checked } = await readOnce(ctx, db, activity, now);
  return checked?.uri === uri.href ? checked.postId : undefined;
}

/**
 * The local status at `uri` (null: none, or its author is suspended), when it
 * was read with the activity's sender (a Like's object); undefined when it
 * was not, and the caller reads it. Whether the status is local is the caller's
 * to check, as for a post it reads itself.
 */
export async function likedStatusReadWithSender(
  ctx: LocalUris,
  db: Kysely<Database>,
  activity: Activity,
  uri: URL,
  now: Date,
): Promise<LikedLocalPost | null | undefined> {
  const { checked } = await readOnce(ctx, db, activity, now);
  return checked?.liked?.uri === uri.href ? checked.liked.post : undefined;
}

function readOnce(ctx: LocalUris, db: Kysely<Database>, activity: Activity, now: Date): Promise<StoredSender> {
  let sender = senders.get(activity);
  if (sender === undefined) {
    sender = read(ctx, db, activity, now);
    senders.set(activity, sender);
  }
  return sender;
}

async function read(ctx: LocalUris, db: Kysely<Database>, activity: Activity, now: Date): Promise<StoredSender> {
  const actorUri = activity.actorId?.href;
  if (actorUri === undefined) return { account: null, checked: null };
  const checkedId = checkedIdOf(activity);
  if (checkedId === null) return { account: await findAccountByUri(db, actorUri), checked: null };
  const uri = checkedId.href;
  const likedUri = activity instanceof Like ? activity.objectId : null;
  const likedNote = likedUri && localNoteAt(ctx, likedUri);
  const found = await findSenderWithChecks(db, {
    actorUri,
    entryKey: encodeKey(tombstoneKey(uri)),
    postUri: uri,
    now: now.toISOString(),
    ...(likedNote && { localStatus: { username: likedNote.identifier, statusId: likedNote.id } }),
  });
  if (!found) return { account: null, checked: null };
  const liked = likedUri && likedNote && found.localStatus !== undefined ? { uri: likedUri.href, post: found.localStatus } : null;
  return { account: found.account, checked: { uri, tombstoned: found.entryLive, postId: found.postId, liked } };
}

/**
 * The id the listeners of the most frequent activities check (status-inbox.ts
 * and remote-statuses.ts): a Create's object, a Like's or an Announce's own id,
 * for a tombstone and for a status already stored under it; a Like's object
 * too, when it is one of our statuses. Read with the sender, those checks cost
 * no statement of their own.
 */
function checkedIdOf(activity: Activity): URL | null {
  if (activity instanceof Create) return activity.objectId;
  if (activity instanceof Like || activity instanceof Announce) return activity.id;
  return null;
}
