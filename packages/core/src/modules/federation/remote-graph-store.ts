import type { Kysely } from "kysely";
import type { AccountRow, Database } from "../../ports/storage-schema.js";
import { followerLocality } from "../relationships/relationships-store.js";

/**
 * The statements behind federating the social graph: finding accounts by
 * id or acct, marking moves and aliases, and the URIs of follow activities.
 */
type Db = Kysely<Database>;

export async function findAccountByAcctKey(db: Db, key: string): Promise<AccountRow | null> {
  return (await db.selectFrom("accounts").selectAll().where("acct_key", "=", key).executeTakeFirst()) ?? null;
}

export async function setMovedTo(db: Db, accountId: string, targetId: string | null, now: string): Promise<void> {
  await db.updateTable("accounts").set({ moved_to_account_id: targetId, updated_at: now }).where("id", "=", accountId).execute();
}

/** Replaces the account's aliases (actor URIs it also is). */
export async function setAlsoKnownAs(db: Db, accountId: string, uris: readonly string[]): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ also_known_as: JSON.stringify(uris) })
    .where("id", "=", accountId)
    .execute();
}

/** Local accounts that follow `accountId`. */
export async function localFollowerIds(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("follows")
    .select("follows.account_id")
    .where("follows.target_account_id", "=", accountId)
    .where(followerLocality("follows", true))
    .execute();
  return rows.map((row) => row.account_id);
}

/** The row id and URI of a follow or a follow request between two accounts. */
export async function findFollowActivity(
  db: Db,
  table: "follows" | "follow_requests",
  accountId: string,
  targetId: string,
): Promise<{ readonly id: string; readonly uri: string | null } | null> {
  const row = await db
    .selectFrom(table)
    .select(["id", "uri"])
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  return row ?? null;
}

export async function setFollowActivityUri(db: Db, table: "follows" | "follow_requests", id: string, uri: string): Promise<void> {
  await db.updateTable(table).set({ uri }).where("id", "=", id).execute();
}

/** Remote accounts with URIs among `uris`, keyed by URI. */
export async function accountIdsByUris(db: Db, uris: readonly string[]): Promise<Map<string, string>> {
  if (uris.length === 0) return new Map();
  const rows = await db.selectFrom("accounts").select(["id", "uri"]).where("uri", "in", uris).execute();
  return new Map(rows.flatMap((row) => (row.uri ? [[row.uri, row.id] as const] : [])));
}

/**
 * Remote accounts that know `accountId` through the graph: its followers, the accounts it follows, and either
 * side of a pending request. Suspended ones are left out (nothing goes to them).
 */
export async function remoteAccountsKnowing(db: Db, accountId: string): Promise<AccountRow[]> {
  const linked = (table: "follows" | "follow_requests") =>
    db
      .selectFrom(table)
      .select("target_account_id as id")
      .where("account_id", "=", accountId)
      .union(db.selectFrom(table).select("account_id as id").where("target_account_id", "=", accountId));
  return db
    .selectFrom("accounts")
    .selectAll()
    .where("domain", "is not", null)
    .where("suspended_at", "is", null)
    .where((eb) => eb.or([eb("id", "in", linked("follows")), eb("id", "in", linked("follow_requests"))]))
    .execute();
}
