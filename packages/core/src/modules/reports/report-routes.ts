import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { AdminReportJson, FiledReportJson, MastodonReportJson } from "./report-entities.js";
import { REPORT_CATEGORIES } from "./report-service.js";
import { TARGET_TYPES } from "./report-tables-store.js";
import {
  ADMIN_READ_SCOPES,
  ADMIN_WRITE_SCOPES,
  REPORT_SCOPES,
  ReportParams,
  TAGS,
  adminViewerOf,
  manageMastodon,
  route,
  userOf,
} from "./route-parts.js";
import { permission } from "../../platform/http/access.js";
import { SERVER_READ } from "./report-rules.js";

const Comment = z.string().max(1000);
const Id = z.string().min(1).max(64);

/**
 * Both forms of a report on one path, told apart by their fields: the
 * spec's (`targetType`, `targetId`) and Mastodon's (`account_id`, with
 * `status_ids`, `category`, `rule_ids`), as JSON or as a form.
 */
const ReportBody = z
  .object({
    targetType: z.enum(TARGET_TYPES).optional().describe("The spec's form: post (a status), user or group"),
    targetId: Id.optional(),
    comment: Comment.default(""),
    forward: zBool.default(false).describe("Send the report to the reported account's server too (not for groups)"),
    account_id: Id.optional().describe("Mastodon's form: the reported account"),
    status_ids: zList(Id).optional().describe("Mastodon's form: statuses of the account attached to the report"),
    category: z.enum(REPORT_CATEGORIES).optional(),
    rule_ids: zList(Id).optional(),
  })
  .superRefine((body, issues) => {
    const mastodon = body.account_id !== undefined;
    if (mastodon && (body.targetType !== undefined || body.targetId !== undefined)) {
      issues.addIssue({
        code: "custom",
        path: ["account_id"],
        message: "Give either account_id (Mastodon's form) or targetType and targetId",
      });
    }
    if (!mastodon && (body.targetType === undefined || body.targetId === undefined)) {
      issues.addIssue({ code: "custom", path: ["targetId"], message: "Give targetType and targetId, or Mastodon's account_id" });
    }
  });

const MastodonListQuery = idPageQuery.extend({
  resolved: zBool.optional().describe("true: resolved or dismissed; false or omitted: open or under review (as Mastodon)"),
  account_id: Id.optional().describe("Reports filed by this account"),
  target_account_id: Id.optional(),
});

/** Filing reports (any signed-in user), and Mastodon's admin report API beside the spec's. */
export const reportRoutes = [
  route({
    method: "POST",
    path: "/api/v1/reports",
    summary: "Files a report on a status, an account or a group; one report a subject, more reports are comments on it",
    description:
      "The spec's form `{targetType, targetId, comment, forward}` answers the report as its reporter sees it; Mastodon's form " +
      "(`account_id`, `status_ids[]`, `comment`, `forward`, `category`, `rule_ids[]`) answers Mastodon's Report entity. A subject with a " +
      "report being handled gets the new report as a comment on it (`merged`); one whose reports were all resolved or dismissed gets a new " +
      "report. A report on a status posted in a group, or on a group, is in that group's scope. A secret group is reported by its members " +
      "only (403 report.secret_group).",
    tags: TAGS,
    access: authenticated,
    scopes: REPORT_SCOPES,
    body: ReportBody,
    response: z.union([FiledReportJson, MastodonReportJson]),
    handler: async ({ caller, body, module }) => {
      const reporterId = userOf(caller);
      if (body.account_id !== undefined) {
        const filed = await module.reports.create(reporterId, {
          targetType: "user",
          targetId: body.account_id,
          comment: body.comment,
          forward: body.forward,
          ...(body.category && { category: body.category }),
          ...(body.rule_ids && { ruleIds: body.rule_ids }),
          ...(body.status_ids && { statusIds: body.status_ids }),
        });
        return module.views.renderMastodon(filed);
      }
      const filed = await module.reports.create(reporterId, {
        targetType: body.targetType ?? "user",
        targetId: body.targetId ?? "",
        comment: body.comment,
        forward: body.forward,
      });
      return module.views.renderFiled(filed);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/reports/{reportId}/edit-comment",
    summary: "Rewrites the caller's own comment on a report they filed",
    description: "A report the caller did not comment on is 404 to them; a resolved or dismissed one is 409 report.comment_closed.",
    tags: TAGS,
    access: authenticated,
    scopes: REPORT_SCOPES,
    params: ReportParams,
    body: z.object({ comment: Comment }),
    response: FiledReportJson,
    handler: async ({ caller, params, body, module }) =>
      module.views.renderFiled(await module.reports.editComment(params.reportId, userOf(caller), body.comment)),
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/reports",
    summary: "Mastodon's admin list of reports (Admin::Report), newest first; unresolved ones unless `resolved` is true",
    description: "Reports on accounts and statuses, in server scope (a report on a group has no Mastodon form).",
    tags: TAGS,
    access: permission(SERVER_READ),
    scopes: ADMIN_READ_SCOPES,
    query: MastodonListQuery,
    response: z.array(AdminReportJson),
    handler: async ({ caller, query, module, url, config }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const rows = await module.reports.list(
        undefined,
        {
          aboutAccounts: true,
          states: query.resolved ? ["resolved", "dismissed"] : ["open", "under_review"],
          ...(query.account_id && { reporterId: query.account_id }),
          ...(query.target_account_id && { targetAccountId: query.target_account_id }),
        },
        page,
      );
      return pagedReply(url, await module.views.renderAdmin(rows, await adminViewerOf(caller), config.origin), page.limit);
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/admin/reports/{reportId}",
    summary: "Mastodon's report update: changes the report's category and the server rules it cites",
    description: "Its state does not move. Rule ids must be the server's (`GET /api/v1/instance/rules`), else 422 report.rule_unknown.",
    tags: TAGS,
    access: manageMastodon,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    body: z.object({ category: z.enum(REPORT_CATEGORIES).optional(), rule_ids: zList(Id).optional() }),
    response: AdminReportJson,
    handler: async ({ caller, params, body, module, config }) => {
      const row = await module.reports.categorise(params.reportId, undefined, userOf(caller), {
        ...(body.category && { category: body.category }),
        ...(body.rule_ids && { ruleIds: body.rule_ids }),
      });
      const [entity] = await module.views.renderAdmin([row], await adminViewerOf(caller), config.origin);
      return entity;
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/reports/{reportId}/assign_to_self",
    summary: "Mastodon's assign_to_self: the caller becomes the report's assigned moderator (under review)",
    tags: TAGS,
    access: manageMastodon,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    response: AdminReportJson,
    handler: async ({ caller, params, module, config }) => {
      const actorId = userOf(caller);
      const row = await module.reports.assign(params.reportId, undefined, actorId, actorId);
      const [entity] = await module.views.renderAdmin([row], await adminViewerOf(caller), config.origin);
      return entity;
    },
  }),
];
