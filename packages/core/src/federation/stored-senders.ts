import type { Activity } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { findAccountByUri } from "../storage/repositories/federation-writes.js";
import type { AccountRow, Database } from "../storage/schema.js";

const senders = new WeakMap<Activity, Promise<AccountRow | null>>();

/**
 * The stored account of an activity's actor (null when unknown), read once
 * per activity: the step before the inbox listeners (which refreshes a
 * stale sender) and the listener handling the activity ask for the same
 * row. Code that changes the account reads it anew.
 */
export function storedSenderOf(db: Kysely<Database>, activity: Activity): Promise<AccountRow | null> {
  let sender = senders.get(activity);
  if (sender === undefined) {
    sender = activity.actorId ? findAccountByUri(db, activity.actorId.href) : Promise.resolve(null);
    senders.set(activity, sender);
  }
  return sender;
}
