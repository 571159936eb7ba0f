import { sql } from "kysely";
import type { IdBounds, GroupInvitationsTable, GroupsDb, InvitationStatus } from "./group-tables-store.js";

export type InvitationRow = GroupInvitationsTable;

/** Records a pending invitation; false when the account has one pending to the group already. */
export async function insertInvitation(db: GroupsDb, row: InvitationRow): Promise<boolean> {
  const result = await db
    .insertInto("group_invitations")
    .values(row)
    .onConflict((conflict) => conflict.columns(["group_id", "account_id"]).where(sql<boolean>`status = 'pending'`).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findInvitation(db: GroupsDb, id: string): Promise<InvitationRow | undefined> {
  return db.selectFrom("group_invitations").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findPendingInvitation(db: GroupsDb, groupId: string, accountId: string): Promise<InvitationRow | undefined> {
  return db
    .selectFrom("group_invitations")
    .selectAll()
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
}

/** Answers a pending invitation in one statement; false when it was answered already. */
export async function answerInvitation(db: GroupsDb, id: string, status: Exclude<InvitationStatus, "pending">, at: string): Promise<boolean> {
  const result = await db
    .updateTable("group_invitations")
    .set({ status, answered_at: at })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks the account's pending invitation to the group accepted (it joined); false when there was none. */
export async function acceptPendingInvitation(db: GroupsDb, groupId: string, accountId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable("group_invitations")
    .set({ status: "accepted", answered_at: at })
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Withdraws a pending invitation of the group; false when there is none of that id. */
export async function deletePendingInvitation(db: GroupsDb, groupId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("group_invitations")
    .where("group_id", "=", groupId)
    .where("id", "=", id)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Withdraws every pending invitation of the account to the group (it was banned). */
export async function deletePendingInvitationsOf(db: GroupsDb, groupId: string, accountId: string): Promise<void> {
  await db
    .deleteFrom("group_invitations")
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .execute();
}

/** A page of a group's pending invitations. */
export async function groupInvitationsPage(db: GroupsDb, groupId: string, bounds: IdBounds): Promise<InvitationRow[]> {
  let select = db.selectFrom("group_invitations").selectAll().where("group_id", "=", groupId).where("status", "=", "pending");
  if (bounds.above !== undefined) select = select.where("id", ">", bounds.above);
  if (bounds.below !== undefined) select = select.where("id", "<", bounds.below);
  return select
    .orderBy("id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
}

/** A page of the invitations the account has not answered. */
export async function inviteePage(db: GroupsDb, accountId: string, bounds: IdBounds): Promise<InvitationRow[]> {
  let select = db.selectFrom("group_invitations").selectAll().where("account_id", "=", accountId).where("status", "=", "pending");
  if (bounds.above !== undefined) select = select.where("id", ">", bounds.above);
  if (bounds.below !== undefined) select = select.where("id", "<", bounds.below);
  return select
    .orderBy("id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
}

/** Of the groups, those the account has a pending invitation to. */
export async function pendingInvitationsIn(db: GroupsDb, accountId: string, groupIds: readonly string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("group_invitations")
    .select("group_id")
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .where("group_id", "in", [...new Set(groupIds)])
    .execute();
  return new Set(rows.map((row) => row.group_id));
}
