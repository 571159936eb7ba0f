import type { CalendarFeeds } from "./calendar-feeds.js";
import type { CalendarSettingsService } from "./calendar-settings-service.js";
import type { EventSearch } from "./event-search.js";
import type { EventService } from "./event-service.js";
import type { EventTranslation } from "./event-translation.js";
import type { EventViews } from "./event-views.js";

/** The events module's services, as its routes get them (`module`). */
export interface EventsModuleServices {
  readonly events: EventService;
  readonly views: EventViews;
  readonly search: EventSearch;
  readonly settings: CalendarSettingsService;
  readonly translation: EventTranslation;
  readonly feeds: CalendarFeeds;
}
