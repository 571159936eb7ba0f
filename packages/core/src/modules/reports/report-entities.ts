import { z } from "zod";
import { AccountJson } from "../../mastodon/entities/account.js";
import { RuleJson } from "../../mastodon/entities/instance.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { AdminAccountJson } from "../admin-accounts/index.js";
import { REPORT_STATES } from "./report-transitions.js";
import { TARGET_TYPES } from "./report-tables-store.js";

/** A reported group, as reports show it (to moderators). */
export const ReportGroupJson = z.object({ id: z.string(), name: z.string(), display_name: z.string(), secret: z.boolean() });

/** What a report is about, rendered: the field of its type is set, null when it is gone or not visible to the caller. */
export const ReportTargetJson = z.object({
  account: AccountJson.nullable().describe("The reported account (the author, for a status)"),
  status: StatusJson.nullable(),
  group: ReportGroupJson.nullable(),
});

export const ReportCommentJson = z.object({
  id: z.string(),
  account: AccountJson.nullable().describe("The reporter; null for a reporter gone since"),
  comment: z.string(),
  statusIds: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ReportNoteJson = z.object({
  index: z.number().int().describe("Zero-based, in the order the notes were added"),
  text: z.string(),
  account: AccountJson.nullable().describe("The moderator who added it"),
  createdAt: z.string(),
});

/** A report as moderators see it (the spec's Report resource). */
export const ReportJson = z.object({
  id: z.string(),
  state: z.enum(REPORT_STATES),
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  target: ReportTargetJson,
  scope: z.string().nullable().describe("The group whose moderators handle it beside the server's; null: server scope"),
  assignedModerator: AccountJson.nullable(),
  actionTakenAt: z.string().nullable(),
  actionTakenBy: AccountJson.nullable().describe("Who resolved or dismissed it"),
  category: z.string(),
  forwarded: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastReportedAt: z.string(),
  comments: z.array(ReportCommentJson),
  notes: z.array(ReportNoteJson),
});
export type ReportEntity = z.infer<typeof ReportJson>;

/**
 * A report with Mastodon's Admin::Report fields beside the spec's: the
 * answer of `GET /api/v1/admin/reports/{reportId}` and of the actions whose
 * paths Mastodon's admin API shares (`unassign`, `resolve`, `reopen`), so
 * that both kinds of clients read it.
 */
export const AdminReportJson = ReportJson.extend({
  action_taken: z.boolean(),
  action_taken_at: z.string().nullable(),
  comment: z.string().describe("The first reporter's comment"),
  created_at: z.string(),
  updated_at: z.string(),
  account: AdminAccountJson.nullable().describe("The first reporter"),
  target_account: AdminAccountJson.nullable().describe("Null for a report on a group"),
  assigned_account: AdminAccountJson.nullable(),
  action_taken_by_account: AdminAccountJson.nullable(),
  statuses: z.array(StatusJson),
  rules: z.array(RuleJson),
});
export type AdminReportEntity = z.infer<typeof AdminReportJson>;

/** A report as its reporter sees it: their own comment, never the notes, the moderators or the other reporters. */
export const FiledReportJson = z.object({
  id: z.string(),
  state: z.enum(REPORT_STATES),
  targetType: z.enum(TARGET_TYPES),
  targetId: z.string(),
  merged: z.boolean().describe("The target had a report being handled: this one was added to it as a comment"),
  comment: z.object({ id: z.string(), comment: z.string(), statusIds: z.array(z.string()), createdAt: z.string(), updatedAt: z.string() }),
  createdAt: z.string(),
});
export type FiledReportEntity = z.infer<typeof FiledReportJson>;

/** Mastodon's Report entity, answered to a report filed in Mastodon's form. */
export const MastodonReportJson = z.object({
  id: z.string(),
  action_taken: z.boolean(),
  action_taken_at: z.string().nullable(),
  category: z.string(),
  comment: z.string(),
  forwarded: z.boolean(),
  created_at: z.string(),
  status_ids: z.array(z.string()).nullable(),
  rule_ids: z.array(z.string()).nullable(),
  target_account: AccountJson,
});
export type MastodonReportEntity = z.infer<typeof MastodonReportJson>;

/** One reported subject of an aggregated view. */
export const AggregateJson = z.object({
  subject: ReportTargetJson,
  targetId: z.string(),
  report: ReportJson.describe("One representative report: the subject's report being handled, else its newest"),
  openCount: z.number().int(),
  totalCount: z.number().int(),
  latestReportedAt: z.string(),
  latestActionTakenAt: z.string().nullable(),
});
export type AggregateEntity = z.infer<typeof AggregateJson>;
