import { type Kysely, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/**
 * Emoji reactions to statuses (Misskey's and Pleroma's `EmojiReact`). A
 * reaction changes what a status shows, so writing one raises the status's
 * version: what renderers kept of it (status-parts-cache.ts) is made again.
 */

export interface NewReaction {
  readonly id: string;
  readonly statusId: string;
  readonly accountId: string;
  readonly name: string;
  readonly customEmojiId: string | null;
  readonly uri: string | null;
}

/** A status's version, raised without naming a versioned column: only what renderers kept of it is made again. */
async function raiseVersion(db: Kysely<Database>, statusId: string): Promise<void> {
  await db
    .updateTable("statuses")
    .set({ version: sql`version + 1` })
    .where("id", "=", statusId)
    .execute();
}

/** Adds a reaction; false when the account had already reacted so, or the activity was seen. */
export async function addReaction(db: Kysely<Database>, reaction: NewReaction, now: string): Promise<boolean> {
  const inserted = await db
    .insertInto("status_reactions")
    .values({
      id: reaction.id,
      status_id: reaction.statusId,
      account_id: reaction.accountId,
      name: reaction.name,
      custom_emoji_id: reaction.customEmojiId,
      uri: reaction.uri,
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return false;
  await raiseVersion(db, reaction.statusId);
  return true;
}

/** Removes the reaction an activity made, if it was the account's; the post it was on, or null. */
export async function removeReactionByUri(db: Kysely<Database>, accountId: string, uri: string): Promise<string | null> {
  const removed = await db
    .deleteFrom("status_reactions")
    .where("uri", "=", uri)
    .where("account_id", "=", accountId)
    .returning("status_id")
    .executeTakeFirst();
  if (!removed) return null;
  await raiseVersion(db, removed.status_id);
  return removed.status_id;
}

/** One reaction with its custom emoji's image, if it is one. */
export interface ReactionRow {
  readonly status_id: string;
  readonly name: string;
  readonly account_id: string;
  readonly emoji_id: string | null;
  readonly image_key: string | null;
  readonly static_key: string | null;
  readonly image_remote_url: string | null;
}

/** The reactions to these statuses, oldest first; one statement. */
export async function loadReactions(db: Kysely<Database>, statusIds: readonly string[]): Promise<ReactionRow[]> {
  if (statusIds.length === 0) return [];
  return db
    .selectFrom("status_reactions")
    .leftJoin("custom_emojis", "custom_emojis.id", "status_reactions.custom_emoji_id")
    .select([
      "status_reactions.status_id",
      "status_reactions.name",
      "status_reactions.account_id",
      "custom_emojis.id as emoji_id",
      "custom_emojis.image_key",
      "custom_emojis.static_key",
      "custom_emojis.image_remote_url",
    ])
    .where("status_reactions.status_id", "in", statusIds)
    .orderBy("status_reactions.id")
    .execute();
}
