import { defineModule } from "../module.js";
import { scheduledStatusMigrations } from "./migrations.js";
import { SCHEDULED_STATUS_PUBLISH_QUEUE, ScheduledStatusService } from "./scheduled-status-service.js";
import { ScheduledStatusesStore } from "./scheduled-statuses-store.js";
import { scheduledStatusRoutes } from "./routes.js";

export type { ScheduledStatusService } from "./scheduled-status-service.js";
export { SCHEDULED_STATUS_PUBLISH_QUEUE } from "./scheduled-status-service.js";

/**
 * Mastodon's scheduled statuses: `scheduled_at` on `POST /api/v1/statuses`
 * keeps the status to be posted then, by a delayed job, and
 * `/api/v1/scheduled_statuses` lists, moves and cancels those waiting.
 * Without this module `scheduled_at` is refused.
 */
export const scheduledStatusesModule = defineModule({
  name: "scheduled-statuses",
  migrations: scheduledStatusMigrations,
  services: ({ deps, core }) => {
    const scheduled = new ScheduledStatusService(deps, core, new ScheduledStatusesStore(deps.storage));
    core.statusScheduling.bind(scheduled);
    return scheduled;
  },
  routes: scheduledStatusRoutes,
  jobs: (scheduled) => [
    {
      queue: SCHEDULED_STATUS_PUBLISH_QUEUE,
      options: { description: "Posts a scheduled status when its time comes" },
      handler: (payload) => scheduled.publish(payload),
    },
  ],
  start: (scheduled) => scheduled.recover(),
});
