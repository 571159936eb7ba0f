import { sql } from "kysely";
import type { IdBounds, GroupJoinRequestsTable, GroupsDb, JoinRequestStatus } from "./group-tables-store.js";

export type JoinRequestRow = GroupJoinRequestsTable;

/** Records a pending request; false when the account has one pending already. */
export async function insertJoinRequest(db: GroupsDb, row: JoinRequestRow): Promise<boolean> {
  const result = await db
    .insertInto("group_join_requests")
    .values(row)
    // The target repeats the partial index's predicate as a literal, as an ON CONFLICT on a partial index must.
    .onConflict((conflict) => conflict.columns(["group_id", "account_id"]).where(sql<boolean>`status = 'pending'`).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findJoinRequest(db: GroupsDb, groupId: string, id: string): Promise<JoinRequestRow | undefined> {
  return db.selectFrom("group_join_requests").selectAll().where("group_id", "=", groupId).where("id", "=", id).executeTakeFirst();
}

export async function findPendingJoinRequest(db: GroupsDb, groupId: string, accountId: string): Promise<JoinRequestRow | undefined> {
  return db
    .selectFrom("group_join_requests")
    .selectAll()
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
}

/**
 * Decides a pending request, in one statement: of two managers deciding the
 * same request at once, one changes it and the other is told it was decided.
 */
export async function decideJoinRequest(
  db: GroupsDb,
  id: string,
  status: Exclude<JoinRequestStatus, "pending">,
  decidedBy: string | null,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable("group_join_requests")
    .set({ status, decided_by: decidedBy, decided_at: at })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Settles the account's pending request, if any (it joined another way, withdrew it, or was banned). */
export async function settlePendingJoinRequest(
  db: GroupsDb,
  groupId: string,
  accountId: string,
  status: Exclude<JoinRequestStatus, "pending">,
  decidedBy: string | null,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable("group_join_requests")
    .set({ status, decided_by: decidedBy, decided_at: at })
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Withdraws the account's own pending request; false when there was none. */
export async function deletePendingJoinRequest(db: GroupsDb, groupId: string, accountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("group_join_requests")
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A page of a group's requests in one state. */
export async function joinRequestsPage(db: GroupsDb, groupId: string, status: JoinRequestStatus, bounds: IdBounds): Promise<JoinRequestRow[]> {
  let select = db.selectFrom("group_join_requests").selectAll().where("group_id", "=", groupId).where("status", "=", status);
  if (bounds.above !== undefined) select = select.where("id", ">", bounds.above);
  if (bounds.below !== undefined) select = select.where("id", "<", bounds.below);
  return select
    .orderBy("id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
}

/** Of the groups, those the account asks to join. */
export async function pendingRequestsIn(db: GroupsDb, accountId: string, groupIds: readonly string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("group_join_requests")
    .select("group_id")
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .where("group_id", "in", [...new Set(groupIds)])
    .execute();
  return new Set(rows.map((row) => row.group_id));
}
