import type { IdBounds, GroupBansTable, GroupMembersTable, GroupsDb } from "./group-tables-store.js";

export type MemberRow = GroupMembersTable;
export type BanRow = GroupBansTable;

/** Adds a member; false when the account is a member already. */
export async function insertMember(db: GroupsDb, row: MemberRow): Promise<boolean> {
  const result = await db
    .insertInto("group_members")
    .values(row)
    .onConflict((conflict) => conflict.columns(["group_id", "account_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Removes a member; false when the account was not one. */
export async function deleteMember(db: GroupsDb, groupId: string, accountId: string): Promise<boolean> {
  const result = await db.deleteFrom("group_members").where("group_id", "=", groupId).where("account_id", "=", accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findMember(db: GroupsDb, groupId: string, accountId: string): Promise<MemberRow | undefined> {
  return db.selectFrom("group_members").selectAll().where("group_id", "=", groupId).where("account_id", "=", accountId).executeTakeFirst();
}

/** The groups the account is a member of. */
export async function groupsOfMember(db: GroupsDb, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom("group_members").select("group_id").where("account_id", "=", accountId).execute();
  return rows.map((row) => row.group_id);
}

/** The viewer's memberships among the groups, by group. */
export async function membershipsIn(db: GroupsDb, accountId: string, groupIds: readonly string[]): Promise<Map<string, MemberRow>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("group_members")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("group_id", "in", [...new Set(groupIds)])
    .execute();
  return new Map(rows.map((row) => [row.group_id, row]));
}

/** A page of a group's members, by membership id (the order they joined in). */
export async function membersPage(db: GroupsDb, groupId: string, bounds: IdBounds): Promise<MemberRow[]> {
  let select = db.selectFrom("group_members").selectAll().where("group_id", "=", groupId);
  if (bounds.above !== undefined) select = select.where("id", ">", bounds.above);
  if (bounds.below !== undefined) select = select.where("id", "<", bounds.below);
  return select
    .orderBy("id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
}

export async function insertBan(db: GroupsDb, row: BanRow): Promise<boolean> {
  const result = await db
    .insertInto("group_bans")
    .values(row)
    .onConflict((conflict) => conflict.columns(["group_id", "account_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function deleteBan(db: GroupsDb, groupId: string, accountId: string): Promise<boolean> {
  const result = await db.deleteFrom("group_bans").where("group_id", "=", groupId).where("account_id", "=", accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function isBanned(db: GroupsDb, groupId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("group_bans")
    .select("account_id")
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A group's bans, newest first, at most `limit`, older than `before` (a ban's time) when given. */
export async function bansOf(db: GroupsDb, groupId: string, limit: number): Promise<BanRow[]> {
  return db.selectFrom("group_bans").selectAll().where("group_id", "=", groupId).orderBy("created_at", "desc").orderBy("account_id").limit(limit).execute();
}
