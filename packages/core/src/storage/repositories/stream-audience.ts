import type { Kysely } from "kysely";
import type { Database } from "../schema.js";

/**
 * Of `authorIds`, those whose posts a viewer does not want streamed: blocked
 * either way, muted (unexpired), or on a domain the viewer blocked.
 */
export async function hiddenAuthorIds(
  db: Kysely<Database>,
  viewerId: string,
  authorIds: readonly string[],
  now: string,
): Promise<Set<string>> {
  const ids = [...new Set(authorIds)].filter((id) => id !== viewerId);
  if (ids.length === 0) return new Set();
  const [blocked, blockedBy, muted, domains] = await Promise.all([
    db
      .selectFrom("blocks")
      .select("target_account_id as id")
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", ids)
      .execute(),
    db.selectFrom("blocks").select("account_id as id").where("target_account_id", "=", viewerId).where("account_id", "in", ids).execute(),
    db
      .selectFrom("mutes")
      .select("target_account_id as id")
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", ids)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .execute(),
    db
      .selectFrom("accounts")
      .innerJoin("account_domain_blocks", "account_domain_blocks.domain", "accounts.domain")
      .select("accounts.id")
      .where("account_domain_blocks.account_id", "=", viewerId)
      .where("accounts.id", "in", ids)
      .execute(),
  ]);
  return new Set([...blocked, ...blockedBy, ...muted, ...domains].map((row) => row.id));
}

/**
 * Of `viewerIds`, those who did something to the post that shows in its
 * rendering for them: favourited, boosted, bookmarked or pinned it, or muted
 * its conversation. One statement for any number of viewers.
 */
export async function viewersWithMarks(db: Kysely<Database>, statusId: string, viewerIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(viewerIds)];
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("favourites")
    .select("account_id")
    .where("status_id", "=", statusId)
    .where("account_id", "in", ids)
    .unionAll(db.selectFrom("statuses").select("account_id").where("reblog_of_id", "=", statusId).where("account_id", "in", ids))
    .unionAll(db.selectFrom("bookmarks").select("account_id").where("status_id", "=", statusId).where("account_id", "in", ids))
    .unionAll(db.selectFrom("status_pins").select("account_id").where("status_id", "=", statusId).where("account_id", "in", ids))
    .unionAll(
      db
        .selectFrom("conversation_mutes")
        .select("account_id")
        .where("account_id", "in", ids)
        .where("conversation_id", "=", (eb) => eb.selectFrom("statuses").select("conversation_id").where("id", "=", statusId)),
    )
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

/** Whether the list belongs to the account. */
export async function ownsList(db: Kysely<Database>, accountId: string, listId: string): Promise<boolean> {
  const row = await db.selectFrom("lists").select("id").where("id", "=", listId).where("account_id", "=", accountId).executeTakeFirst();
  return row !== undefined;
}
