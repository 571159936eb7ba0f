import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { notFromLimitedDomain } from "../domain-policy/index.js";

/** Accounts followed by those the viewer follows, with how many of them follow each; the viewer's own follows left out. */
export async function friendsOfFriends(
  db: Kysely<Database>,
  viewerId: string,
  limit: number,
): Promise<{ accountId: string; count: number }[]> {
  const rows = await db
    .selectFrom("follows as mine")
    .innerJoin("follows as theirs", "theirs.account_id", "mine.target_account_id")
    .innerJoin("accounts", "accounts.id", "theirs.target_account_id")
    .select(["theirs.target_account_id as id", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("mine.account_id", "=", viewerId)
    .where("theirs.target_account_id", "!=", viewerId)
    .where("accounts.suspended_at", "is", null)
    .where(notFromLimitedDomain("accounts.domain", "accounts.id", null))
    .where(sql<SqlBool>`accounts.discoverable = ${sql.lit(true)}`)
    .where(
      sql<SqlBool>`not exists (select 1 from follows f where f.account_id = ${viewerId} and f.target_account_id = theirs.target_account_id)`,
    )
    .groupBy("theirs.target_account_id")
    .orderBy(sql`count(*)`, "desc")
    .orderBy("theirs.target_account_id", "asc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ accountId: row.id, count: Number(row.n) }));
}

/** Local accounts that posted most recently, for viewers whose follows suggest nothing (or for guests' directories). */
export async function recentlyActiveLocalAccounts(db: Kysely<Database>, viewerId: string | null, limit: number): Promise<string[]> {
  let query = db
    .selectFrom("accounts")
    .select("accounts.id")
    .where("accounts.domain", "is", null)
    .where("accounts.suspended_at", "is", null)
    .where(notFromLimitedDomain("accounts.domain", "accounts.id", null))
    .where(sql<SqlBool>`accounts.discoverable = ${sql.lit(true)}`)
    .where("accounts.last_status_at", "is not", null);
  if (viewerId !== null) {
    query = query
      .where("accounts.id", "!=", viewerId)
      .where(sql<SqlBool>`not exists (select 1 from follows f where f.account_id = ${viewerId} and f.target_account_id = accounts.id)`);
  }
  const rows = await query.orderBy("accounts.last_status_at", "desc").orderBy("accounts.id", "asc").limit(limit).execute();
  return rows.map((row) => row.id);
}
