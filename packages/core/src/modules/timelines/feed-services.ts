import { ConversationService } from "../conversations/conversation-service.js";
import { ConversationViews } from "../conversations/conversation-views.js";
import type { ServiceDeps } from "../service-deps.js";
import type { BatchedWrites } from "../../platform/storage/batched-writes.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { FilterService } from "../filters/filter-service.js";
import { ListService } from "../lists/list-service.js";
import { MarkerService } from "../markers/marker-service.js";
import { reactForNotifications } from "../notifications/notification-reactions.js";
import { NotificationService } from "../notifications/notification-service.js";
import { NotificationViews } from "../notifications/notification-views.js";
import type { AccountRenderer, StatusViews } from "../statuses/status-views.js";
import { HomeFeedWriter } from "./home-feed.js";
import { reactForTimelines } from "./timeline-reactions.js";
import { TimelineService } from "./timeline-service.js";

/** Timelines, lists, markers, conversations and notifications, wired to the events they react to. */
export interface FeedServices {
  readonly timelines: TimelineService;
  /** Writes home feeds on fan-out (see home-feed.ts for why). */
  readonly homeFeed: HomeFeedWriter;
  readonly lists: ListService;
  readonly markers: MarkerService;
  readonly conversations: ConversationService;
  readonly conversationViews: ConversationViews;
  readonly notifications: NotificationService;
  readonly notificationViews: NotificationViews;
  /** Renders the accounts these services list (list members), in batches. */
  readonly feedAccounts: AccountRenderer;
}

export function createFeedServices(
  deps: ServiceDeps,
  events: DomainEvents,
  statusViews: StatusViews,
  accountRenderer: AccountRenderer,
  batchedWrites: BatchedWrites,
): FeedServices {
  // Filters hold no state beyond their ports, so this instance matches the one the filters routes use.
  const filters = new FilterService(deps);
  const homeFeed = new HomeFeedWriter(deps, batchedWrites);
  homeFeed.registerJobs(deps.queue);
  const lists = new ListService(deps);
  const conversations = new ConversationService(deps);
  const notifications = new NotificationService(deps, batchedWrites);
  const markers = new MarkerService(deps, async (accountId, upToId) => {
    await notifications.markAllRead(accountId, upToId);
  });
  reactForTimelines(events, homeFeed, lists, conversations);
  reactForNotifications(events, notifications, deps);
  return {
    timelines: new TimelineService(deps, statusViews, filters, lists),
    homeFeed,
    lists,
    markers,
    conversations,
    conversationViews: new ConversationViews(statusViews, accountRenderer),
    notifications,
    notificationViews: new NotificationViews(statusViews, accountRenderer, filters),
    feedAccounts: accountRenderer,
  };
}
