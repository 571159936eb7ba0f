import { type Activity, Announce, Create, Like } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { findAccountByUri, findAccountByUriWithEntry } from "../storage/repositories/federation-writes.js";
import type { AccountRow, Database } from "../storage/schema.js";
import { encodeKey } from "./sql-kv-store.js";
import { tombstoneKey } from "./tombstones.js";

interface StoredSender {
  readonly account: AccountRow | null;
  /** The id whose tombstone was read with the account, and whether it has one; null when none was. */
  readonly tombstone: { readonly uri: string; readonly live: boolean } | null;
}

const senders = new WeakMap<Activity, Promise<StoredSender>>();

/**
 * The stored account of an activity's actor (null when unknown), read once
 * per activity: the step before the inbox listeners (which refreshes a
 * stale sender) and the listener handling the activity ask for the same
 * row. Code that changes the account reads it anew.
 */
export async function storedSenderOf(db: Kysely<Database>, activity: Activity, now: Date): Promise<AccountRow | null> {
  return (await readOnce(db, activity, now)).account;
}

/**
 * Whether `uri` has a tombstone, when it was read with the activity's
 * sender; undefined when it was not (an unknown sender, another id), and the
 * caller reads it from the key-value store.
 */
export async function tombstoneReadWithSender(db: Kysely<Database>, activity: Activity, uri: URL, now: Date): Promise<boolean | undefined> {
  const { tombstone } = await readOnce(db, activity, now);
  return tombstone?.uri === uri.href ? tombstone.live : undefined;
}

function readOnce(db: Kysely<Database>, activity: Activity, now: Date): Promise<StoredSender> {
  let sender = senders.get(activity);
  if (sender === undefined) {
    sender = read(db, activity, now);
    senders.set(activity, sender);
  }
  return sender;
}

async function read(db: Kysely<Database>, activity: Activity, now: Date): Promise<StoredSender> {
  const actorUri = activity.actorId?.href;
  if (actorUri === undefined) return { account: null, tombstone: null };
  const buried = buriedIdOf(activity);
  if (buried === null) return { account: await findAccountByUri(db, actorUri), tombstone: null };
  const found = await findAccountByUriWithEntry(db, actorUri, encodeKey(tombstoneKey(buried.href)), now.toISOString());
  return found ? { account: found.account, tombstone: { uri: buried.href, live: found.entryLive } } : { account: null, tombstone: null };
}

/**
 * The id whose tombstone the listener of the most frequent activities checks
 * (status-inbox.ts): a Create's object, a Like's or an Announce's own id.
 * Read with the sender, it costs no statement of its own.
 */
function buriedIdOf(activity: Activity): URL | null {
  if (activity instanceof Create) return activity.objectId;
  if (activity instanceof Like || activity instanceof Announce) return activity.id;
  return null;
}
