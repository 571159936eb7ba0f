import type { Kysely } from "kysely";
import type { Database, PollRow, StatusRow } from "../../ports/storage-schema.js";

/** Reads that the ActivityPub objects of statuses are built from beyond the rows themselves: polls and replies. */

/** The polls of these statuses, keyed by status id. */
export async function findPollsOfStatuses(db: Kysely<Database>, statusIds: readonly string[]): Promise<Map<string, PollRow>> {
  if (statusIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("polls")
    .selectAll()
    .where("status_id", "in", [...new Set(statusIds)])
    .execute();
  return new Map(rows.map((row) => [row.status_id, row]));
}

/** A reply as its parent's replies collection lists it: its id, and what its ActivityPub id is made of. */
export interface ListedReply {
  readonly id: string;
  readonly uri: string | null;
  readonly local: StatusRow["local"];
  readonly username: string;
  readonly domain: string | null;
}

/**
 * The replies to a status that anyone may see (public and unlisted, by accounts not suspended), oldest first,
 * after the reply of id `afterId` when given.
 */
export async function listPublicReplies(
  db: Kysely<Database>,
  statusId: string,
  page: { readonly afterId?: string; readonly limit: number },
): Promise<ListedReply[]> {
  let query = db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select(["statuses.id", "statuses.uri", "statuses.local", "accounts.username", "accounts.domain"])
    .where("statuses.in_reply_to_id", "=", statusId)
    .where("statuses.visibility", "in", ["public", "unlisted"])
    .where("accounts.suspended_at", "is", null);
  if (page.afterId !== undefined) query = query.where("statuses.id", ">", page.afterId);
  return query.orderBy("statuses.id", "asc").limit(page.limit).execute();
}

export async function countPublicReplies(db: Kysely<Database>, statusId: string): Promise<number> {
  const row = await db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("statuses.in_reply_to_id", "=", statusId)
    .where("statuses.visibility", "in", ["public", "unlisted"])
    .where("accounts.suspended_at", "is", null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
