import { groupsModule } from "../groups/index.js";
import { defineModule } from "../module.js";
import { CalendarFeeds } from "./calendar-feeds.js";
import { CalendarSettingsService } from "./calendar-settings-service.js";
import { EventNotices } from "./event-notices.js";
import { EventSearch } from "./event-search.js";
import { CALENDAR_APP, EventService } from "./event-service.js";
import { EventTranslation } from "./event-translation.js";
import { EventViews } from "./event-views.js";
import type { EventsModuleServices } from "./events-module-services.js";
import { EventsStore } from "./events-store.js";
import { eventMigrations } from "./migrations.js";
import { eventRoutes } from "./routes.js";

export type { EventsModuleServices } from "./events-module-services.js";
export { EVENT_NOTIFICATION_TYPES } from "./event-notices.js";

/**
 * Calendar events (the spec's "Calendar events"): events of a user's or a
 * group's calendar, public or invite-only, with RSVPs, cancellation told to
 * those concerned (`event.cancelled` notifications), soft deletion, search,
 * translations through the AI port, calendar export settings, and
 * iCalendar files. In a group it is the `calendar` application.
 */
export const eventsModule = defineModule({
  name: "events",
  requires: [groupsModule],
  migrations: eventMigrations,
  groupApps: [
    {
      id: CALENDAR_APP,
      name: "Calendar",
      description: "The group's events, with their attendees and a calendar to subscribe to",
      defaultInstalled: true,
    },
  ],
  services: ({ deps, core, use }): EventsModuleServices => {
    const groups = use(groupsModule);
    const store = new EventsStore(deps.storage);
    const views = new EventViews(deps, core, groups, store);
    const notices = new EventNotices(core, views, store);
    core.notificationViews.extend(notices);
    const settings = new CalendarSettingsService(deps, groups, store);
    return {
      events: new EventService(deps, core, groups, views, notices, store),
      views,
      search: new EventSearch(views, store),
      settings,
      translation: new EventTranslation(deps, views, store),
      feeds: new CalendarFeeds(deps, core, groups, views, settings, store),
    };
  },
  routes: eventRoutes,
});
