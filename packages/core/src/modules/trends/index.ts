import { defineModule } from "../module.js";
import { previewCardsModule } from "../preview-cards/index.js";
import { trendRoutes } from "./routes.js";
import { TrendsService } from "./trends-service.js";
import { trendMigrations } from "./migrations.js";

export type { TrendsService } from "./trends-service.js";

/** Mastodon's trends (`/api/v1/trends/...`): hashtags, links and statuses ranked by recent activity on this server. */
export const trendsModule = defineModule({
  name: "trends",
  migrations: trendMigrations,
  requires: [previewCardsModule],
  services: ({ deps, core, use }) => new TrendsService(deps, core.tags, core.statusViews, core.filters, use(previewCardsModule)),
  routes: trendRoutes,
});
