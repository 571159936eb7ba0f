import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";
import { UNRESOLVED_PREDICATE } from "./report-tables-store.js";

const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const account: ColumnSpec = { type: "text", references: "accounts(id)", onDelete: "cascade" };
const optionalAccount: ColumnSpec = { type: "text", nullable: true, references: "accounts(id)", onDelete: "set null" };
const report: ColumnSpec = { type: "text", references: "reports(id)", onDelete: "cascade" };

/**
 * The reports module's tables. A report names its target by type and id,
 * without a key on the target's table: a report outlives the status,
 * account or group it is about, as a record of what moderators did.
 * `target_account_id` is the reported account (the author, for a status;
 * null for a group); `scope_group_id` is the group whose moderators see
 * the report beside the server's (null: server scope only).
 */
export const reportMigrations: readonly MigrationSpec[] = [
  {
    name: "reports_0001_reports",
    tables: [
      {
        name: "reports",
        columns: {
          id: text,
          target_type: text,
          target_id: text,
          target_account_id: optionalText,
          scope_group_id: optionalText,
          state: text,
          assigned_account_id: optionalAccount,
          action_taken_by_id: optionalAccount,
          action_taken_at: optionalAt,
          /** Mastodon's category of the first report: spam, legal, violation or other. */
          category: { type: "text", default: "other" },
          /** JSON array of the server rule ids the reports cited. */
          rule_ids: { type: "json" },
          forwarded: { type: "bool", default: false },
          created_at: at,
          updated_at: at,
          /** When a reporter last reported the target in this report (its newest comment). */
          last_reported_at: at,
        },
        primaryKey: ["id"],
        indexes: [
          { name: "reports_unresolved_target_idx", columns: ["target_type", "target_id"], unique: true, where: UNRESOLVED_PREDICATE },
          { name: "reports_target_idx", columns: ["target_type", "target_id", "id"] },
          { name: "reports_scope_idx", columns: ["scope_group_id", "id"] },
          { name: "reports_target_account_idx", columns: ["target_account_id", "id"] },
          { name: "reports_state_idx", columns: ["state", "id"] },
        ],
      },
      {
        /** A reporter's word on a report: a new report of a target under review is merged here. */
        name: "report_comments",
        columns: {
          id: text,
          report_id: report,
          account_id: account,
          comment: text,
          /** JSON array of the statuses the reporter attached (Mastodon's `status_ids`). */
          status_ids: { type: "json" },
          created_at: at,
          updated_at: at,
        },
        primaryKey: ["id"],
        indexes: [
          { name: "report_comments_report_account_idx", columns: ["report_id", "account_id"], unique: true },
          { name: "report_comments_account_idx", columns: ["account_id", "id"] },
        ],
      },
      {
        /** Moderators' notes; a note's index is its rank by id within its report. */
        name: "report_notes",
        columns: { id: text, report_id: report, account_id: optionalAccount, text, created_at: at },
        primaryKey: ["id"],
        indexes: [{ name: "report_notes_report_idx", columns: ["report_id", "id"] }],
      },
      {
        /** Which report an `admin.report` notification is about: the notifications table knows statuses only. */
        name: "report_notifications",
        columns: { notification_id: { type: "text", references: "notifications(id)", onDelete: "cascade" }, report_id: report },
        primaryKey: ["notification_id"],
        indexes: [{ name: "report_notifications_report_idx", columns: ["report_id"] }],
      },
    ],
  },
  {
    // The id of the Flag a comment came in, so that a Flag delivered again is not filed again.
    name: "reports_0002_flag_uris",
    addColumns: [{ table: "report_comments", column: "uri", spec: optionalText }],
    indexes: [{ table: "report_comments", name: "report_comments_uri_idx", columns: ["uri"] }],
  },
];
