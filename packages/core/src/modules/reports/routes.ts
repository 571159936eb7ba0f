import { adminReportRoutes } from "./admin-routes.js";
import { reportRoutes } from "./report-routes.js";

/** Every route of the reports module. */
export const reportsModuleRoutes = [...reportRoutes, ...adminReportRoutes];
