import { defineModule } from "../module.js";
import { ANNUAL_REPORTS_QUEUE, AnnualReportService } from "./annual-reports-service.js";
import { AnnualReportsStore } from "./annual-reports-store.js";
import { annualReportMigrations } from "./migrations.js";
import { annualReportRoutes } from "./routes.js";

export type { AnnualReportService } from "./annual-reports-service.js";

/** Mastodon's annual reports (`/api/v1/annual_reports`): a year of an account's activity, generated on the queue. */
export const annualReportsModule = defineModule({
  name: "annual-reports",
  migrations: annualReportMigrations,
  services: ({ deps, core }) => new AnnualReportService(deps, new AnnualReportsStore(deps.storage), core.statusViews, core.accountViews),
  routes: annualReportRoutes,
  jobs: (reports) => [
    {
      queue: ANNUAL_REPORTS_QUEUE,
      options: { description: "Generates an account's annual report" },
      handler: async (payload) => {
        const { accountId, year } = payload as { accountId?: unknown; year?: unknown };
        if (typeof accountId !== "string" || typeof year !== "number") return;
        await reports.run({ accountId, year });
      },
    },
  ],
});
