import type { Kysely } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { AccountRow, Database, StatusRow } from "../../ports/storage-schema.js";
import { followerLocality } from "../relationships/relationships-store.js";

/** Reads and writes of statuses, favourites, votes and pins as they cross between servers. */

export async function findStatusByUri(db: Kysely<Database>, uri: string): Promise<StatusRow | null> {
  return (await selectStatusByUri(db, { uri }))[0] ?? null;
}

// Compiled once: every status and reply from another server is looked up by its URI before it is stored.
const selectStatusByUri = compiledOnce((db, args: { uri: string }) => db.selectFrom("statuses").selectAll().where("uri", "=", args.uri));

/** Where a local account's remote followers are reached: one row per follower, with its inboxes. */
export async function listRemoteFollowers(
  db: Kysely<Database>,
  accountId: string,
): Promise<Pick<AccountRow, "id" | "uri" | "domain" | "inbox_url" | "shared_inbox_url">[]> {
  return selectRemoteFollowers(db, { accountId });
}

// Read for every new status, to find whether any other server is to hear of it: built and compiled once.
const selectRemoteFollowers = compiledOnce((db, args: { accountId: string }) =>
  db
    .selectFrom("follows")
    .innerJoin("accounts", "accounts.id", "follows.account_id")
    .select(["accounts.id", "accounts.uri", "accounts.domain", "accounts.inbox_url", "accounts.shared_inbox_url"])
    .where("follows.target_account_id", "=", args.accountId)
    // The followers' index finds the remote ones without passing a local follower (migration 0022).
    .where(followerLocality("follows", false))
    .where("accounts.domain", "is not", null)
    .where("accounts.suspended_at", "is", null),
);

/** The remote accounts that voted in a poll, each once. */
export async function listRemoteVoters(
  db: Kysely<Database>,
  pollId: string,
): Promise<Pick<AccountRow, "id" | "uri" | "domain" | "inbox_url" | "shared_inbox_url">[]> {
  return db
    .selectFrom("accounts")
    .select(["accounts.id", "accounts.uri", "accounts.domain", "accounts.inbox_url", "accounts.shared_inbox_url"])
    .where("accounts.domain", "is not", null)
    .where("accounts.suspended_at", "is", null)
    .where("accounts.id", "in", db.selectFrom("poll_votes").select("poll_votes.account_id").where("poll_votes.poll_id", "=", pollId))
    .execute();
}

/** Names of the hashtags of each status, keyed by status id. */
export async function listStatusTagNames(db: Kysely<Database>, statusIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  if (statusIds.length === 0) return result;
  const rows = await db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select(["status_tags.status_id", "tags.name", "tags.display_name"])
    .where("status_tags.status_id", "in", [...statusIds])
    .execute();
  for (const row of rows) result.set(row.status_id, [...(result.get(row.status_id) ?? []), row.display_name || row.name]);
  return result;
}

export async function insertPin(
  db: Kysely<Database>,
  pin: { id: string; accountId: string; statusId: string },
  now: string,
): Promise<void> {
  await db
    .insertInto("status_pins")
    .values({ id: pin.id, account_id: pin.accountId, status_id: pin.statusId, created_at: now })
    .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
    .execute();
}

export async function deletePin(db: Kysely<Database>, accountId: string, statusId: string): Promise<void> {
  await db.deleteFrom("status_pins").where("account_id", "=", accountId).where("status_id", "=", statusId).execute();
}

/** True when a status already has an edit history (its first version is written before its first edit). */
export async function hasEdits(db: Kysely<Database>, statusId: string): Promise<boolean> {
  return (await db.selectFrom("status_edits").select("id").where("status_id", "=", statusId).limit(1).execute()).length > 0;
}

/** Ids of an account's statuses and boosts, newest first. */
export async function listStatusIdsOfAccount(db: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom("statuses").select("id").where("account_id", "=", accountId).orderBy("id", "desc").execute();
  return rows.map((row) => row.id);
}
