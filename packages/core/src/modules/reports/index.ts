import { groupsModule } from "../groups/index.js";
import { defineModule } from "../module.js";
import { reportMigrations } from "./migrations.js";
import { ReportNotices } from "./report-notices.js";
import { ReportService } from "./report-service.js";
import { ReportViews } from "./report-views.js";
import type { ReportsServices } from "./reports-services.js";
import { reportsModuleRoutes } from "./routes.js";
import { statusUrisOf } from "./reports-store.js";
import { reportsDb } from "./report-tables-store.js";

export type { ReportsServices } from "./reports-services.js";
export type {
  FiledReport,
  ForwardedReport,
  NewReport,
  ReceivedReport,
  ReportForwarder,
  ReportService,
} from "./report-service.js";

/**
 * Moderation reports (the spec's "Reports (moderation)"): reports on
 * statuses, accounts and groups, one a subject being handled with the
 * reporters' comments on it; their states, assignment, moderators' notes,
 * aggregated views, the group scope where a group's moderators handle the
 * reports about it, and Mastodon's report and admin report API over the
 * same data.
 *
 * Federation: a report another server sends (a Flag) is filed by
 * `reports.receive`, set as the core's `flagReceipts` receiver; a report
 * asking to be forwarded goes to the reported account's server as the
 * instance actor's Flag (`core.flags`). Every moderator's action on a
 * report is told to the audit log (`moderation.action`). An account action
 * (`POST /api/v1/admin/accounts/{id}/action`) or a group manager's removal
 * or ban naming `report_id` resolves that report (`reports.resolveFor`).
 */
export const reportsModule = defineModule({
  name: "reports",
  requires: [groupsModule],
  migrations: reportMigrations,
  services: ({ deps, core, events, use }): ReportsServices => {
    const reports = new ReportService(deps, core, events);
    const notices = new ReportNotices(deps, core, () => reports);
    reports.notifyWith(notices);
    core.notificationViews.extend(notices);
    use(groupsModule).actionReports.resolveWith({
      assertAbout: (reportId, accountId, groupId) => reports.assertAbout(reportId, accountId, groupId),
      resolve: async (reportId, actorId, groupId) => {
        await reports.resolveFor(reportId, actorId, groupId);
      },
    });
    core.adminAccounts.resolveReportsWith({
      assertAbout: (reportId, accountId) => reports.assertAbout(reportId, accountId),
      resolve: async (reportId, actorId) => {
        await reports.resolveFor(reportId, actorId);
      },
    });
    // Reports from other servers are filed as any report; a report asking to be forwarded goes as the instance's Flag.
    core.flagReceipts.receiveWith(async (flag) => {
      await reports.receive({
        reporterId: flag.reporterId,
        targetAccountId: flag.targetAccountId,
        statusIds: flag.statusIds,
        comment: flag.comment,
        uri: flag.uri,
      });
    });
    reports.forwardWith(async (report) => {
      const statusUris = await statusUrisOf(reportsDb(deps.storage.db), report.statusIds);
      await core.flags.send({
        reporterId: report.reporterId,
        targetAccountId: report.targetAccountId,
        statusUris,
        comment: report.comment,
      });
    });
    return { reports, views: new ReportViews(deps, core) };
  },
  routes: reportsModuleRoutes,
});
