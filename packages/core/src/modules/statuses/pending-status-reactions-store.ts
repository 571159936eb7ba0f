import type { Kysely } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { Database } from "../../ports/storage-schema.js";
import { literalLimit } from "../../platform/storage/literal-limit.js";

/** The rows of new local statuses whose reactions are not all done (migration 0019). */

/** Written in the status's transaction, before the status itself (SQLite's full-text trigger looks for it). */
export async function recordPendingReactions(db: Kysely<Database>, statusId: string, now: string): Promise<void> {
  await insertPendingReactions(db, { statusId, now });
}

// Written for every status: built and compiled once.
const insertPendingReactions = compiledOnce((db, args: { statusId: string; now: string }) =>
  db.insertInto("pending_post_reactions").values({ status_id: args.statusId, created_at: args.now }),
);

export async function deletePendingReactions(db: Kysely<Database>, statusIds: readonly string[]): Promise<void> {
  if (statusIds.length > 0) await deletePendingReactionsOf(db, { statusIds });
}

const deletePendingReactionsOf = compiledOnce((db, args: { statusIds: readonly string[] }) =>
  db.deleteFrom("pending_post_reactions").where("status_id", "in", args.statusIds),
);

/** Statuses whose row was written before `before`, oldest first. */
export async function pendingReactionsBefore(db: Kysely<Database>, before: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("pending_post_reactions")
    .select("status_id")
    .where("created_at", "<", before)
    .orderBy("created_at")
    .orderBy("status_id")
    .limit(literalLimit(limit))
    .execute();
  return rows.map((row) => row.status_id);
}
