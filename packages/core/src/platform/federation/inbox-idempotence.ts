import type { InboxContext } from "@fedify/fedify";
import { type Activity, Announce, Create, Like } from "@fedify/fedify/vocab";

/**
 * The key under which Fedify remembers (in the key-value store, for a day)
 * that an incoming activity was handled, so a repeat is answered without
 * handling it again; null: not remembered.
 *
 * Create, Like and Announce are not remembered: each is stored under its own
 * id (a status's or vote's URI, one favourite per account and status, a boost's
 * URI), so handling a repeat finds it and changes nothing; a post its author
 * deleted stays deleted, and an undone Like or Announce stays undone, through
 * their tombstones (status-inbox.ts). Remembering them cost a read and a
 * write (a commit of its own) of every activity of the most frequent kinds.
 * Every other type keeps Fedify's default key (one per activity and inbox):
 * a repeated Follow, for one, must not be answered twice.
 */
export function inboxIdempotenceKey<TContextData>(ctx: InboxContext<TContextData>, activity: Activity): string | null {
  if (activity instanceof Create || activity instanceof Like || activity instanceof Announce || activity.id === null) return null;
  return `${ctx.origin}\n${activity.id.href}\n${ctx.recipient === null ? "sharedInbox" : `inbox\n${ctx.recipient}`}`;
}
