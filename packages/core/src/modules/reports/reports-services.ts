import type { ReportService } from "./report-service.js";
import type { ReportViews } from "./report-views.js";

/** The reports module's services, as its routes get them (`module`). */
export interface ReportsServices {
  readonly reports: ReportService;
  readonly views: ReportViews;
}
