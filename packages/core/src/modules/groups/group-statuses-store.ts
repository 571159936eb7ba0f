import { toBool } from "../../ports/storage-schema.js";
import { countGroupAccount } from "./group-account-store.js";
import type { GroupsDb, GroupStatusesTable, IdBounds } from "./group-tables-store.js";

export type GroupStatusRow = GroupStatusesTable;

/** Records a status as posted in its group, and counts it there. */
export async function insertGroupStatus(db: GroupsDb, row: GroupStatusRow): Promise<void> {
  await db.insertInto("group_statuses").values(row).execute();
  await countGroupStatuses(db, row.group_id, 1);
}

/** The group a status was posted in, if any. */
export async function groupOfStatus(db: GroupsDb, statusId: string): Promise<string | null> {
  const row = await db.selectFrom("group_statuses").select("group_id").where("status_id", "=", statusId).executeTakeFirst();
  return row?.group_id ?? null;
}

/** Forgets a deleted status's place in its group, and its count there. */
export async function deleteGroupStatus(db: GroupsDb, statusId: string): Promise<void> {
  const row = await db.deleteFrom("group_statuses").where("status_id", "=", statusId).returning("group_id").executeTakeFirst();
  if (row) await countGroupStatuses(db, row.group_id, -1);
}

/** Which of `accountIds` are members of the group. */
export async function membersAmong(db: GroupsDb, groupId: string, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("group_members")
    .select("account_id")
    .where("group_id", "=", groupId)
    .where("account_id", "in", [...new Set(accountIds)])
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

async function countGroupStatuses(db: GroupsDb, groupId: string, delta: number): Promise<void> {
  await db
    .updateTable("groups")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", delta) }))
    .where("id", "=", groupId)
    .execute();
  await countGroupAccount(db, groupId, "statuses_count", delta);
}

/**
 * Takes an account's mentions in a secret group's statuses, which are what
 * let it see them (they are posted `direct`): a member who leaves or is
 * removed loses sight of them at once.
 */
export async function forgetSecretMentions(db: GroupsDb, groupId: string, accountId: string): Promise<void> {
  const group = await db.selectFrom("groups").select("secret").where("id", "=", groupId).executeTakeFirst();
  if (!group || !toBool(group.secret)) return;
  await db
    .deleteFrom("mentions")
    .where("account_id", "=", accountId)
    .where("status_id", "in", (eb) => eb.selectFrom("group_statuses").select("status_id").where("group_id", "=", groupId))
    .execute();
}

/** One page of the ids of a group's statuses (ids are time ordered: newest first unless `ascending`). */
export async function groupStatusIdsPage(db: GroupsDb, groupId: string, bounds: IdBounds): Promise<string[]> {
  let query = db.selectFrom("group_statuses").select("status_id").where("group_id", "=", groupId);
  if (bounds.above !== undefined) query = query.where("status_id", ">", bounds.above);
  if (bounds.below !== undefined) query = query.where("status_id", "<", bounds.below);
  const rows = await query
    .orderBy("status_id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
  return rows.map((row) => row.status_id);
}
