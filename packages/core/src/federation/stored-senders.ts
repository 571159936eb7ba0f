import { type Activity, Announce, Create, Like } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { findAccountByUri, findSenderWithChecks } from "../storage/repositories/federation-writes.js";
import type { AccountRow, Database } from "../storage/schema.js";
import { encodeKey } from "./sql-kv-store.js";
import { tombstoneKey } from "./tombstones.js";

interface StoredSender {
  readonly account: AccountRow | null;
  /** What was read with the account of the id the listener checks; null when nothing was. */
  readonly checked: { readonly uri: string; readonly tombstoned: boolean; readonly postId: string | null } | null;
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
  const { checked } = await readOnce(db, activity, now);
  return checked?.uri === uri.href ? checked.tombstoned : undefined;
}

/**
 * The id of the post stored at `uri` (null: none), when it was read with the
 * activity's sender; undefined when it was not, and the caller reads it.
 */
export async function postReadWithSender(
  db: Kysely<Database>,
  activity: Activity,
  uri: URL,
  now: Date,
): Promise<string | null | undefined> {
  const { checked } = await readOnce(db, activity, now);
  return checked?.uri === uri.href ? checked.postId : undefined;
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
  if (actorUri === undefined) return { account: null, checked: null };
  const checkedId = checkedIdOf(activity);
  if (checkedId === null) return { account: await findAccountByUri(db, actorUri), checked: null };
  const uri = checkedId.href;
  const found = await findSenderWithChecks(db, { actorUri, entryKey: encodeKey(tombstoneKey(uri)), postUri: uri, now: now.toISOString() });
  if (!found) return { account: null, checked: null };
  return { account: found.account, checked: { uri, tombstoned: found.entryLive, postId: found.postId } };
}

/**
 * The id the listeners of the most frequent activities check (status-inbox.ts
 * and remote-posts.ts): a Create's object, a Like's or an Announce's own id,
 * for a tombstone and for a post already stored under it. Read with the
 * sender, those checks cost no statement of their own.
 */
function checkedIdOf(activity: Activity): URL | null {
  if (activity instanceof Create) return activity.objectId;
  if (activity instanceof Like || activity instanceof Announce) return activity.id;
  return null;
}
