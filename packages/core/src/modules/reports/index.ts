import { groupsModule } from "../groups/index.js";
import { defineModule } from "../module.js";
import { reportMigrations } from "./migrations.js";
import { ReportNotices } from "./report-notices.js";
import { ReportService } from "./report-service.js";
import { ReportViews } from "./report-views.js";
import type { ReportsServices } from "./reports-services.js";
import { reportsModuleRoutes } from "./routes.js";

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
 * For the federation: `reports.receive` files a report another server sent
 * (a Flag), and `reports.forwardWith` sets how a report asking to be
 * forwarded reaches the reported account's server. For account actions:
 * `reports.resolveFor(reportId, actorId)` resolves the report an action
 * answers.
 */
export const reportsModule = defineModule({
  name: "reports",
  requires: [groupsModule],
  migrations: reportMigrations,
  services: ({ deps, core }): ReportsServices => {
    const reports = new ReportService(deps, core);
    const notices = new ReportNotices(deps, core, () => reports);
    reports.notifyWith(notices);
    core.notificationViews.extend(notices);
    core.adminAccounts.resolveReportsWith({
      assertAbout: (reportId, accountId) => reports.assertAbout(reportId, accountId),
      resolve: async (reportId, actorId) => {
        await reports.resolveFor(reportId, actorId);
      },
    });
    return { reports, views: new ReportViews(deps, core) };
  },
  routes: reportsModuleRoutes,
});
