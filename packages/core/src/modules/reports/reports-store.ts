import { sql } from "kysely";
import type { Selectable } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import {
  type ReportCommentsTable,
  type ReportNotesTable,
  type ReportState,
  type ReportsDb,
  type ReportsTable,
  type TargetType,
  UNRESOLVED_PREDICATE,
} from "./report-tables-store.js";

export type ReportRow = Selectable<ReportsTable>;
export type CommentRow = Selectable<ReportCommentsTable>;
export type NoteRow = Selectable<ReportNotesTable>;

/** Which reports a list holds. */
export interface ReportFilter {
  /** Only the reports of this group's scope; undefined: every report (server scope). */
  readonly scopeGroupId?: string;
  readonly targetType?: TargetType;
  readonly targetId?: string;
  readonly states?: readonly ReportState[];
  /** Only reports one of whose comments is this account's. */
  readonly reporterId?: string;
  readonly targetAccountId?: string;
  /** Only reports about an account or its statuses (what Mastodon's admin API can show). */
  readonly aboutAccounts?: boolean;
}

export async function findReport(db: ReportsDb, id: string): Promise<ReportRow | undefined> {
  return db.selectFrom("reports").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findUnresolvedReport(db: ReportsDb, targetType: TargetType, targetId: string): Promise<ReportRow | undefined> {
  return db
    .selectFrom("reports")
    .selectAll()
    .where("target_type", "=", targetType)
    .where("target_id", "=", targetId)
    .where("state", "in", ["open", "under_review"])
    .executeTakeFirst();
}

/** Inserts a report; false when the target has an unresolved report already (its one report stays). */
export async function insertReport(db: ReportsDb, row: ReportRow): Promise<boolean> {
  const result = await db
    .insertInto("reports")
    .values({ ...row, forwarded: Boolean(row.forwarded) })
    .onConflict((conflict) =>
      conflict
        .columns(["target_type", "target_id"])
        .where(sql<boolean>`${sql.raw(UNRESOLVED_PREDICATE)}`)
        .doNothing(),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The part of a report its transitions change. */
export interface StandingColumns {
  readonly state: ReportState;
  readonly assignedAccountId: string | null;
  readonly actionTakenById: string | null;
  readonly actionTakenAt: string | null;
}

export async function writeStanding(db: ReportsDb, id: string, standing: StandingColumns, now: string): Promise<void> {
  await db
    .updateTable("reports")
    .set({
      state: standing.state,
      assigned_account_id: standing.assignedAccountId,
      action_taken_by_id: standing.actionTakenById,
      action_taken_at: standing.actionTakenAt,
      updated_at: now,
    })
    .where("id", "=", id)
    .execute();
}

export async function writeCategorisation(db: ReportsDb, report: ReportRow): Promise<void> {
  await db
    .updateTable("reports")
    .set({ category: report.category, rule_ids: report.rule_ids, updated_at: report.updated_at })
    .where("id", "=", report.id)
    .execute();
}

export async function markReported(db: ReportsDb, id: string, now: string): Promise<void> {
  await db.updateTable("reports").set({ last_reported_at: now, updated_at: now }).where("id", "=", id).execute();
}

export async function markForwarded(db: ReportsDb, id: string): Promise<void> {
  await db.updateTable("reports").set({ forwarded: true }).where("id", "=", id).execute();
}

export async function deleteReport(db: ReportsDb, id: string): Promise<void> {
  await db.deleteFrom("reports").where("id", "=", id).execute();
}

export async function findComment(db: ReportsDb, reportId: string, accountId: string): Promise<CommentRow | undefined> {
  return db
    .selectFrom("report_comments")
    .selectAll()
    .where("report_id", "=", reportId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The comment a Flag with this id filed about the account, if it was received before. */
export async function findFlagComment(db: ReportsDb, uri: string, targetAccountId: string): Promise<CommentRow | undefined> {
  return db
    .selectFrom("report_comments")
    .innerJoin("reports", "reports.id", "report_comments.report_id")
    .selectAll("report_comments")
    .where("report_comments.uri", "=", uri)
    .where("reports.target_account_id", "=", targetAccountId)
    .executeTakeFirst();
}

export async function insertComment(db: ReportsDb, row: CommentRow): Promise<void> {
  await db.insertInto("report_comments").values(row).execute();
}

export async function updateComment(
  db: ReportsDb,
  id: string,
  changes: { comment: string; status_ids?: string; updated_at: string },
): Promise<void> {
  await db.updateTable("report_comments").set(changes).where("id", "=", id).execute();
}

/** The comments of the reports, oldest first. */
export async function commentsOf(db: ReportsDb, reportIds: readonly string[]): Promise<CommentRow[]> {
  if (reportIds.length === 0) return [];
  return db
    .selectFrom("report_comments")
    .selectAll()
    .where("report_id", "in", [...new Set(reportIds)])
    .orderBy("id")
    .execute();
}

/** The notes of the reports, oldest first: the order their indexes count in. */
export async function notesOf(db: ReportsDb, reportIds: readonly string[]): Promise<NoteRow[]> {
  if (reportIds.length === 0) return [];
  return db
    .selectFrom("report_notes")
    .selectAll()
    .where("report_id", "in", [...new Set(reportIds)])
    .orderBy("id")
    .execute();
}

export async function insertNote(db: ReportsDb, row: NoteRow): Promise<void> {
  await db.insertInto("report_notes").values(row).execute();
}

/** The note at a zero-based index of the report's notes, if there is one. */
export async function noteAt(db: ReportsDb, reportId: string, index: number): Promise<string | undefined> {
  const row = await db
    .selectFrom("report_notes")
    .select("id")
    .where("report_id", "=", reportId)
    .orderBy("id")
    .limit(1)
    .offset(index)
    .executeTakeFirst();
  return row?.id;
}

export async function deleteNote(db: ReportsDb, id: string): Promise<void> {
  await db.deleteFrom("report_notes").where("id", "=", id).execute();
}

export async function reportsByIds(db: ReportsDb, ids: readonly string[]): Promise<ReportRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("reports")
    .selectAll()
    .where("id", "in", [...new Set(ids)])
    .execute();
}

/** One page of reports, newest first (Mastodon's `max_id`, `since_id`, `min_id`). */
export async function listReports(db: ReportsDb, filter: ReportFilter, page: PageRequest): Promise<ReportRow[]> {
  let query = db.selectFrom("reports").selectAll();
  if (filter.scopeGroupId !== undefined) query = query.where("scope_group_id", "=", filter.scopeGroupId);
  if (filter.targetType) query = query.where("target_type", "=", filter.targetType);
  if (filter.targetId) query = query.where("target_id", "=", filter.targetId);
  if (filter.states) query = query.where("state", "in", [...filter.states]);
  if (filter.targetAccountId) query = query.where("target_account_id", "=", filter.targetAccountId);
  if (filter.aboutAccounts) query = query.where("target_account_id", "is not", null);
  if (filter.reporterId) {
    const reporterId = filter.reporterId;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("report_comments")
          .select("report_comments.id")
          .whereRef("report_comments.report_id", "=", "reports.id")
          .where("report_comments.account_id", "=", reporterId),
      ),
    );
  }
  if (page.maxId !== undefined) query = query.where("id", "<", page.maxId);
  if (page.minId !== undefined) {
    const rows = await query.where("id", ">", page.minId).orderBy("id", "asc").limit(page.limit).execute();
    return rows.reverse();
  }
  if (page.sinceId !== undefined) query = query.where("id", ">", page.sinceId);
  return query.orderBy("id", "desc").limit(page.limit).execute();
}

/** The groups reports read: whether a group exists and is secret, its name. */
export async function findGroupBrief(db: ReportsDb, groupId: string) {
  return db
    .selectFrom("groups")
    .select(["id", "name", "display_name", "secret", "created_at"])
    .where("id", "=", groupId)
    .executeTakeFirst();
}

export async function groupsBrief(db: ReportsDb, groupIds: readonly string[]) {
  if (groupIds.length === 0) return [];
  return db
    .selectFrom("groups")
    .select(["id", "name", "display_name", "secret", "created_at"])
    .where("id", "in", [...new Set(groupIds)])
    .execute();
}

export async function isGroupMember(db: ReportsDb, groupId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("group_members")
    .select("group_id")
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The group a status was posted in, or null. */
export async function groupOfStatus(db: ReportsDb, statusId: string): Promise<string | null> {
  const row = await db.selectFrom("group_statuses").select("group_id").where("status_id", "=", statusId).executeTakeFirst();
  return row?.group_id ?? null;
}

/** What reports need of an account: whether it is here, and whether it may handle reports. */
export async function accountsBrief(db: ReportsDb, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom("accounts")
    .leftJoin("users", "users.account_id", "accounts.id")
    .select([
      "accounts.id",
      "accounts.domain",
      "accounts.suspended_at",
      "accounts.silenced_at",
      "users.disabled_at",
      "users.account_id as user_id",
    ])
    .where("accounts.id", "in", [...new Set(ids)])
    .execute();
}

/** The accounts the statuses belong to, by status id. */
export async function statusAuthors(db: ReportsDb, statusIds: readonly string[]): Promise<Map<string, string>> {
  if (statusIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("statuses")
    .select(["id", "account_id"])
    .where("id", "in", [...new Set(statusIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.account_id]));
}

/** A permission of a report-managing resource, held by a local account that is neither suspended, limited nor disabled. */
export interface ManagerGrantRow {
  readonly actor_id: string;
  readonly resource: string;
  readonly access: string;
  readonly scope: string;
}

/**
 * The grants over Reports and GroupReports of the accounts that may handle
 * reports, in server scope or in the group's: one query, whatever their number.
 */
export async function managerGrants(db: ReportsDb, groupId: string | null): Promise<ManagerGrantRow[]> {
  const scopes = groupId === null ? ["global"] : ["global", groupId];
  return db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .innerJoin("role_permissions", "role_permissions.role_id", "roles.id")
    .innerJoin("accounts", "accounts.id", "actor_roles.actor_id")
    .innerJoin("users", "users.account_id", "accounts.id")
    .select(["actor_roles.actor_id", "role_permissions.resource", "role_permissions.access", "roles.scope"])
    .where("role_permissions.resource", "in", ["Reports", "GroupReports"])
    .where("roles.scope", "in", scopes)
    .where("accounts.suspended_at", "is", null)
    .where("accounts.silenced_at", "is", null)
    .where("users.disabled_at", "is", null)
    .orderBy("actor_roles.actor_id")
    .execute();
}

export async function insertReportNotifications(db: ReportsDb, notificationIds: readonly string[], reportId: string): Promise<void> {
  if (notificationIds.length === 0) return;
  await db
    .insertInto("report_notifications")
    .values(notificationIds.map((notification_id) => ({ notification_id, report_id: reportId })))
    .execute();
}

export async function reportsOfNotifications(db: ReportsDb, notificationIds: readonly string[]): Promise<Map<string, string>> {
  if (notificationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("report_notifications")
    .select(["notification_id", "report_id"])
    .where("notification_id", "in", [...notificationIds])
    .execute();
  return new Map(rows.map((row) => [row.notification_id, row.report_id]));
}

/** Who reported first: the account the report's notification comes from. */
export async function firstReporterOf(db: ReportsDb, reportId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("report_comments")
    .select("account_id")
    .where("report_id", "=", reportId)
    .orderBy("id")
    .executeTakeFirst();
  return row?.account_id;
}

/** The ActivityPub ids of these statuses that have one (another server's statuses all do), in the order given. */
export async function statusUrisOf(db: ReportsDb, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("statuses")
    .select(["id", "uri"])
    .where("id", "in", [...ids])
    .execute();
  const uris = new Map(rows.map((row) => [row.id, row.uri]));
  return ids.flatMap((id) => uris.get(id) ?? []);
}
