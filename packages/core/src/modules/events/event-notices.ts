import type { KithServices } from "../core-services.js";
import type { ExtendedRecord, NotificationExtension } from "../notifications/index.js";
import type { EventViews } from "./event-views.js";
import type { EventsStore } from "./events-store.js";

/** Kith's notification types of calendar events (see the notifications service). */
export const EVENT_NOTIFICATION_TYPES: ReadonlySet<string> = new Set(["event.cancelled"]);

/**
 * Tells those invited to or taking part in an event that it is cancelled,
 * through the notifications API and the user's stream (`event.cancelled`,
 * from the organizer). Each notification records its event, which its
 * entity shows as `event`, rendered as the recipient sees it now (null once
 * it may not see it).
 */
export class EventNotices implements NotificationExtension {
  readonly types = EVENT_NOTIFICATION_TYPES;
  constructor(
    private readonly core: Pick<KithServices, "notifications">,
    private readonly views: EventViews,
    private readonly store: EventsStore,
  ) {}

  async cancelled(eventId: string, organizerId: string, recipientIds: readonly string[]): Promise<void> {
    await this.core.notifications.notifyMany(recipientIds, organizerId, "event.cancelled", null, {
      onWritten: (records) =>
        this.store.linkNotifications(
          records.map((record) => record.id),
          eventId,
        ),
    });
  }

  async fields(records: readonly ExtendedRecord[], viewerId: string): Promise<ReadonlyMap<string, Readonly<Record<string, unknown>>>> {
    const eventOf = await this.store.eventsOfNotifications(records.map((record) => record.id));
    const seen = new Map<string, unknown>();
    for (const eventId of new Set(eventOf.values())) seen.set(eventId, await this.#asSeen(eventId, viewerId));
    return new Map(records.map((record) => [record.id, { event: seen.get(eventOf.get(record.id) ?? "") ?? null }]));
  }

  async #asSeen(eventId: string, viewerId: string): Promise<unknown> {
    const event = await this.store.find(eventId);
    if (!event || !(await this.views.sees(event, viewerId))) return null;
    return this.views.renderOne(event, viewerId);
  }
}
