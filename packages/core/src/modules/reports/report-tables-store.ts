import type { Kysely } from "kysely";
import type { Database, DbBoolWithDefault, JsonText, Timestamp } from "../../ports/storage-schema.js";

/** The states of a report (see report-transitions.ts for how it moves between them). */
export const REPORT_STATES = ["open", "under_review", "resolved", "dismissed"] as const;
export type ReportState = (typeof REPORT_STATES)[number];

/**
 * The predicate of a report still being handled (open or under review),
 * which a target has at most one of. Written on the action's time, which
 * the transitions set exactly when a report is resolved or dismissed and
 * clear when it is reopened: the same test as the state's, in a form both
 * engines print back alike.
 */
export const UNRESOLVED_PREDICATE = "action_taken_at IS NULL";

export const TARGET_TYPES = ["post", "user", "group"] as const;
/** What a report is about: a status (the spec's "post"), an account or a group. */
export type TargetType = (typeof TARGET_TYPES)[number];

export interface ReportsTable {
  id: string;
  target_type: TargetType;
  target_id: string;
  target_account_id: string | null;
  scope_group_id: string | null;
  state: ReportState;
  assigned_account_id: string | null;
  action_taken_by_id: string | null;
  action_taken_at: Timestamp | null;
  category: string;
  rule_ids: JsonText;
  forwarded: DbBoolWithDefault;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_reported_at: Timestamp;
}

export interface ReportCommentsTable {
  id: string;
  report_id: string;
  account_id: string;
  comment: string;
  status_ids: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The id of the Flag it came in from another server; null for a report filed here. */
  uri: string | null;
}

export interface ReportNotesTable {
  id: string;
  report_id: string;
  account_id: string | null;
  text: string;
  created_at: Timestamp;
}

export interface ReportNotificationsTable {
  notification_id: string;
  report_id: string;
}

/**
 * The columns of the groups module's tables that reports read: a group's
 * secrecy and name, its members, and the group a status was posted in
 * (that module's migrations make them; reports only read them).
 */
export interface GroupsReadTable {
  id: string;
  name: string;
  display_name: string;
  secret: boolean | number;
  created_at: Timestamp;
}

export interface GroupMembersReadTable {
  group_id: string;
  account_id: string;
}

export interface GroupStatusesReadTable {
  status_id: string;
  group_id: string;
}

// A type, not an interface: Kysely's withTables wants an object type with an index signature.
export type ReportTables = {
  reports: ReportsTable;
  report_comments: ReportCommentsTable;
  report_notes: ReportNotesTable;
  report_notifications: ReportNotificationsTable;
  groups: GroupsReadTable;
  group_members: GroupMembersReadTable;
  group_statuses: GroupStatusesReadTable;
};

export type ReportsDb = Kysely<Database & ReportTables>;

/** The database, or a transaction on it, as the module's stores see it. */
export function reportsDb(db: Kysely<Database>): ReportsDb {
  return db.withTables<ReportTables>();
}
