import type { Kysely } from "kysely";
import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import type { Database } from "../../ports/storage-schema.js";

export type RepliesPolicy = "followed" | "list" | "none";

export interface ListRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly title: string;
  readonly repliesPolicy: RepliesPolicy;
  readonly exclusive: boolean;
}

function toList(row: { id: string; account_id: string; title: string; replies_policy: string; exclusive: unknown }): ListRecord {
  const policy = row.replies_policy === "followed" || row.replies_policy === "none" ? row.replies_policy : "list";
  return { id: row.id, ownerId: row.account_id, title: row.title, repliesPolicy: policy, exclusive: readFlag(row.exclusive) };
}

const LIST_COLUMNS = ["id", "account_id", "title", "replies_policy", "exclusive"] as const;

export async function listsOfOwner(db: Kysely<Database>, ownerId: string): Promise<ListRecord[]> {
  const rows = await db.selectFrom("lists").select(LIST_COLUMNS).where("account_id", "=", ownerId).orderBy("id").execute();
  return rows.map(toList);
}

export async function findList(db: Kysely<Database>, id: string): Promise<ListRecord | null> {
  const row = await db.selectFrom("lists").select(LIST_COLUMNS).where("id", "=", id).executeTakeFirst();
  return row ? toList(row) : null;
}

export async function insertList(db: Kysely<Database>, list: ListRecord, at: string): Promise<void> {
  await db
    .insertInto("lists")
    .values({
      id: list.id,
      account_id: list.ownerId,
      title: list.title,
      replies_policy: list.repliesPolicy,
      exclusive: writeFlag(list.exclusive),
      created_at: at,
      updated_at: at,
    })
    .execute();
}

export async function updateList(db: Kysely<Database>, list: ListRecord, at: string): Promise<void> {
  await db
    .updateTable("lists")
    .set({ title: list.title, replies_policy: list.repliesPolicy, exclusive: writeFlag(list.exclusive), updated_at: at })
    .where("id", "=", list.id)
    .execute();
}

export async function deleteList(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("list_accounts").where("list_id", "=", id).execute();
  await db.deleteFrom("lists").where("id", "=", id).execute();
}

/** Member account ids, in account id order after `afterId`; every member when `limit` is null. */
export async function listMemberIds(
  db: Kysely<Database>,
  listId: string,
  page: { limit: number | null; maxId?: string; sinceId?: string },
): Promise<string[]> {
  let query = db.selectFrom("list_accounts").select("account_id").where("list_id", "=", listId);
  if (page.maxId) query = query.where("account_id", "<", page.maxId);
  if (page.sinceId) query = query.where("account_id", ">", page.sinceId);
  query = query.orderBy("account_id", "desc");
  if (page.limit !== null) query = query.limit(page.limit);
  return (await query.execute()).map((row) => row.account_id);
}

export async function addListMembers(db: Kysely<Database>, listId: string, accountIds: readonly string[], at: string): Promise<void> {
  if (accountIds.length === 0) return;
  await db
    .insertInto("list_accounts")
    .values(accountIds.map((accountId) => ({ list_id: listId, account_id: accountId, created_at: at })))
    .onConflict((oc) => oc.columns(["list_id", "account_id"]).doNothing())
    .execute();
}

export async function removeListMembers(db: Kysely<Database>, listId: string, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await db.deleteFrom("list_accounts").where("list_id", "=", listId).where("account_id", "in", accountIds).execute();
}

/** Takes an account out of every list of one owner (after an unfollow or a block). */
export async function removeFromOwnersLists(db: Kysely<Database>, ownerId: string, accountId: string): Promise<void> {
  await db
    .deleteFrom("list_accounts")
    .where("account_id", "=", accountId)
    .where("list_id", "in", db.selectFrom("lists").select("id").where("account_id", "=", ownerId))
    .execute();
}

/** The owner's lists that hold `accountId`. */
export async function listsOfOwnerHolding(db: Kysely<Database>, ownerId: string, accountId: string): Promise<ListRecord[]> {
  const rows = await db
    .selectFrom("lists")
    .innerJoin("list_accounts", "list_accounts.list_id", "lists.id")
    .select(["lists.id", "lists.account_id", "lists.title", "lists.replies_policy", "lists.exclusive"])
    .where("lists.account_id", "=", ownerId)
    .where("list_accounts.account_id", "=", accountId)
    .orderBy("lists.id")
    .execute();
  return rows.map(toList);
}

/** Of `accountIds`, those `ownerId` follows or has asked to follow. */
export async function followedOrRequested(db: Kysely<Database>, ownerId: string, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const [follows, requests] = await Promise.all([
    db
      .selectFrom("follows")
      .select("target_account_id")
      .where("account_id", "=", ownerId)
      .where("target_account_id", "in", accountIds)
      .execute(),
    db
      .selectFrom("follow_requests")
      .select("target_account_id")
      .where("account_id", "=", ownerId)
      .where("target_account_id", "in", accountIds)
      .execute(),
  ]);
  return new Set([...follows, ...requests].map((row) => row.target_account_id));
}

/** Of `accountIds`, those that exist. */
export async function existingAccounts(db: Kysely<Database>, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db.selectFrom("accounts").select("id").where("id", "in", accountIds).execute();
  return new Set(rows.map((row) => row.id));
}
