import type { InboxContext } from "@fedify/fedify";
import { type Activity, Create } from "@fedify/fedify/vocab";

/**
 * The key under which Fedify remembers (in the KV store, for a day) that an
 * incoming activity was handled, so a repeat is answered without handling
 * it again; null: not remembered.
 *
 * A Create is not remembered: what it stores is kept under the object's own
 * id (a post's URI, a vote's URI), so handling a repeat finds it and changes
 * nothing, and a post deleted by its author stays deleted through its
 * tombstone. Remembering it cost a read and a write of every Create, the
 * most frequent activity. Every other type keeps Fedify's default key (one
 * per activity and inbox): a Like or an Announce repeated after its Undo
 * must not count again, and a repeated Follow must not be answered twice.
 */
export function inboxIdempotenceKey<TContextData>(ctx: InboxContext<TContextData>, activity: Activity): string | null {
  if (activity instanceof Create || activity.id === null) return null;
  return `${ctx.origin}\n${activity.id.href}\n${ctx.recipient === null ? "sharedInbox" : `inbox\n${ctx.recipient}`}`;
}
