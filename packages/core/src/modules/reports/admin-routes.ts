import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import {
  DEFAULT_PAGE,
  cursorPageLinks,
  cursorPageQuery,
  clampLimit,
  idPageQuery,
  pageRequest,
  pagedReply,
} from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { zBool, zInt } from "../../platform/http/schemas.js";
import type { AggregateCursor } from "./aggregates-store.js";
import { AdminReportJson, AggregateJson, ReportJson } from "./report-entities.js";
import { TARGET_TYPES, type TargetType } from "./report-tables-store.js";
import { REPORT_STATES, type ReportState } from "./report-transitions.js";
import {
  ADMIN_READ_SCOPES,
  ADMIN_WRITE_SCOPES,
  ReportParams,
  adminViewerOf,
  ScopeQuery,
  TAGS,
  manageInScope,
  readInScope,
  readServer,
  route,
  userOf,
} from "./route-parts.js";
import type { ReportsServices } from "./reports-services.js";

const BASE = "/api/v1/admin/reports";

const ListQuery = idPageQuery.merge(ScopeQuery).extend({
  targetId: z.string().min(1).max(64).optional(),
  targetType: z.enum(TARGET_TYPES).optional(),
  state: z.enum(REPORT_STATES).optional(),
  resolved: zBool.optional().describe("true: resolved or dismissed reports; false: open or under review"),
});

const AggregateQuery = cursorPageQuery.merge(ScopeQuery);

function statesOf(query: { state?: ReportState; resolved?: boolean }): readonly ReportState[] | undefined {
  if (query.state) return [query.state];
  if (query.resolved === undefined) return undefined;
  return query.resolved ? ["resolved", "dismissed"] : ["open", "under_review"];
}

function encodeCursor(cursor: AggregateCursor): string {
  return Buffer.from(JSON.stringify([cursor.latestReportedAt, cursor.targetId])).toString("base64url");
}

function decodeCursor(text: string | undefined): AggregateCursor | null {
  if (text === undefined) return null;
  try {
    const [latestReportedAt, targetId] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof latestReportedAt === "string" && typeof targetId === "string") return { latestReportedAt, targetId };
  } catch {
    // Falls through to the refusal below.
  }
  throw new KithError("request.validation_failed", {
    details: [{ field: "query.cursor", message: "Not a cursor of this list", code: "custom" }],
  });
}

function aggregateRoute(targetType: TargetType, path: string, summary: string, global: boolean) {
  return route({
    method: "GET",
    path: `${BASE}/${path}`,
    summary,
    description:
      "Each entry: the subject, one representative report (its report being handled, else its newest), its open and total counts, " +
      "the latest report and action dates; most recently reported first, counted by the database. Cursor paging through `Link`.",
    tags: TAGS,
    access: global ? readServer : readInScope,
    scopes: ADMIN_READ_SCOPES,
    query: global ? cursorPageQuery : AggregateQuery,
    response: z.array(AggregateJson),
    handler: async ({ caller, query, module, url }) => {
      const limit = clampLimit(query.limit, DEFAULT_PAGE);
      const scope = global ? undefined : (query as { scope?: string }).scope;
      const page = await module.reports.aggregated(targetType, scope, decodeCursor(query.cursor), limit);
      const entries = await module.views.renderAggregates(page.rows, userOf(caller));
      const link = cursorPageLinks(url, { next: page.next ? encodeCursor(page.next) : null, prev: null }, limit);
      return Reply.json(entries, link ? { headers: { link } } : {});
    },
  });
}

/** Renders a report after an action, in the superset form the paths shared with Mastodon's admin API answer. */
async function answer(module: ReportsServices, reportId: string, scope: string | undefined, caller: Caller, origin: string) {
  const row = await module.reports.get(reportId, scope);
  const [entity] = await module.views.renderAdmin([row], await adminViewerOf(caller), origin);
  return entity;
}

function actionRoute(
  path: string,
  summary: string,
  act: (module: ReportsServices, reportId: string, scope: string | undefined, actorId: string) => Promise<unknown>,
  description?: string,
) {
  return route({
    method: "POST",
    path: `${BASE}/{reportId}/${path}`,
    summary,
    ...(description && { description }),
    tags: TAGS,
    access: manageInScope,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    response: AdminReportJson,
    handler: async ({ caller, params, query, module, config }) => {
      const actorId = userOf(caller);
      await act(module, params.reportId, query.scope, actorId);
      return answer(module, params.reportId, query.scope, caller, config.origin);
    },
  });
}

const SHARED_WITH_MASTODON =
  "The path is also Mastodon's admin API's: the answer is the report with Admin::Report's fields beside the spec's.";

/** The spec's moderation endpoints (`/api/v1/admin/reports/...`), with the `scope` query parameter. */
export const adminReportRoutes = [
  route({
    method: "GET",
    path: `${BASE}/eligible-assignees`,
    summary:
      "Users who may be assigned reports in the scope: they hold Reports.Manage or GroupReports.Manage there and are not suspended or limited",
    tags: TAGS,
    access: readInScope,
    scopes: ADMIN_READ_SCOPES,
    query: ScopeQuery,
    response: z.array(AccountJson),
    handler: async ({ query, module, services }) => {
      const ids = await module.reports.eligibleAssignees(query.scope);
      const accounts = await services.accountViews.render(ids);
      return ids.flatMap((id) => {
        const account = accounts.get(id);
        return account ? [account] : [];
      });
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/list`,
    summary: "Reports of the scope, newest first, with their target, assigned moderator, comments and notes",
    description:
      "Filters: `targetId`, `targetType` (post, user, group), `state`, or `resolved`. Paged by `max_id`, `since_id`, `min_id` with `Link`.",
    tags: TAGS,
    access: readInScope,
    scopes: ADMIN_READ_SCOPES,
    query: ListQuery,
    response: z.array(ReportJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const states = statesOf(query);
      const rows = await module.reports.list(
        query.scope,
        {
          ...(query.targetId && { targetId: query.targetId }),
          ...(query.targetType && { targetType: query.targetType }),
          ...(states && { states }),
        },
        page,
      );
      return pagedReply(url, await module.views.render(rows, userOf(caller)), page.limit);
    },
  }),
  aggregateRoute("group", "reported-groups", "Reported groups, aggregated; always server scope", true),
  aggregateRoute("post", "reported-posts", "Reported statuses, aggregated", false),
  aggregateRoute(
    "user",
    "reported-users",
    "Accounts reported directly (not through their statuses; a report in Mastodon's form, on an account with statuses attached, counts here), aggregated",
    false,
  ),
  route({
    method: "GET",
    path: `${BASE}/{reportId}`,
    summary: "A report in full: target, assigned moderator, state, reporters' comments, all notes",
    description: `Also Mastodon's \`GET /api/v1/admin/reports/{id}\`: ${SHARED_WITH_MASTODON}`,
    tags: TAGS,
    access: readInScope,
    scopes: ADMIN_READ_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    response: AdminReportJson,
    handler: async ({ caller, params, query, module, config }) => answer(module, params.reportId, query.scope, caller, config.origin),
  }),
  route({
    method: "POST",
    path: `${BASE}/{reportId}/add-note`,
    summary: "Adds a note, timestamped and attributed to the caller, at the end of the report's notes",
    tags: TAGS,
    access: manageInScope,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    body: z.object({ note: z.string().trim().min(1).max(5000).describe("The note's text") }),
    response: AdminReportJson,
    handler: async ({ caller, params, query, body, module, config }) => {
      const actorId = userOf(caller);
      await module.reports.addNote(params.reportId, query.scope, actorId, body.note);
      return answer(module, params.reportId, query.scope, caller, config.origin);
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{reportId}/assign`,
    summary: "Assigns the report to a user (under review), or with `userId` null takes the assignment away (open)",
    description:
      "The assignee must hold Reports.Manage or GroupReports.Manage in the report's scope and be neither suspended nor limited " +
      "(422 report.assignee_ineligible). A resolved or dismissed report is not assigned: 409 report.assign_closed.",
    tags: TAGS,
    access: manageInScope,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    body: z.object({ userId: z.string().min(1).max(64).nullable() }),
    response: AdminReportJson,
    handler: async ({ caller, params, query, body, module, config }) => {
      await module.reports.assign(params.reportId, query.scope, body.userId, userOf(caller));
      return answer(module, params.reportId, query.scope, caller, config.origin);
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{reportId}/delete`,
    summary: "Deletes the report with its comments and notes, for good (for invalid or spam reports)",
    tags: TAGS,
    access: manageInScope,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    response: z.object({}),
    handler: async ({ caller, params, query, module }) => {
      await module.reports.delete(params.reportId, query.scope, userOf(caller));
      return {};
    },
  }),
  actionRoute("dismiss", "Dismisses the report from any state; the caller and the time are recorded", (module, id, scope, actorId) =>
    module.reports.dismiss(id, scope, actorId),
  ),
  route({
    method: "POST",
    path: `${BASE}/{reportId}/remove-note`,
    summary: "Removes the note at a zero-based index; an index with no note is refused (422 report.note_index_invalid)",
    tags: TAGS,
    access: manageInScope,
    scopes: ADMIN_WRITE_SCOPES,
    params: ReportParams,
    query: ScopeQuery,
    body: z.object({ index: zInt }),
    response: AdminReportJson,
    handler: async ({ caller, params, query, body, module, config }) => {
      await module.reports.removeNote(params.reportId, query.scope, body.index, userOf(caller));
      return answer(module, params.reportId, query.scope, caller, config.origin);
    },
  }),
  actionRoute(
    "reopen",
    "Reopens a resolved or dismissed report: open, its assignment and action fields cleared",
    (module, id, scope, actorId) => module.reports.reopen(id, scope, actorId),
    `409 report.not_closed for a report not resolved or dismissed; 409 report.target_has_open_report when its subject has another report being handled. ${SHARED_WITH_MASTODON}`,
  ),
  actionRoute(
    "resolve",
    "Resolves the report from any state; the caller and the time are recorded",
    (module, id, scope, actorId) => module.reports.resolve(id, scope, actorId),
    SHARED_WITH_MASTODON,
  ),
  actionRoute(
    "unassign",
    "Takes away any assignment; a report under review becomes open",
    (module, id, scope, actorId) => module.reports.unassign(id, scope, actorId),
    SHARED_WITH_MASTODON,
  ),
];
