import { defineModule } from "../module.js";
import { reportsModule } from "../reports/index.js";
import { MetricsService } from "./metrics-service.js";
import { MetricsStore } from "./metrics-store.js";
import { metricsRoutes } from "./routes.js";

export type { MetricsService } from "./metrics-service.js";

/** Mastodon's admin dashboard data: measures, dimensions and retention, computed from this server's rows. */
export const adminMetricsModule = defineModule({
  name: "admin-metrics",
  requires: [reportsModule],
  services: ({ deps }) => new MetricsService(new MetricsStore(deps.storage), { version: deps.config.version }),
  routes: metricsRoutes,
});
