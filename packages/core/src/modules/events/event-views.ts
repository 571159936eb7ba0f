import { isKithError, KithError } from "../../domain/errors.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import { toBool } from "../../ports/storage-schema.js";
import type { KithServices } from "../core-services.js";
import type { GroupsServices } from "../groups/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { eventErrors } from "./event-codes.js";
import type { EventAttendeeEntity, EventEntity, EventStatistics } from "./event-entities.js";
import type { EventRow, EventsStore, ParticipantRow } from "./events-store.js";
import type { EventPhase } from "./rsvp.js";

/** Where the event is in its life, from its markers. */
export function phaseOf(event: EventRow): EventPhase {
  if (event.deleted_at !== null) return "deleted";
  return event.cancelled_at !== null ? "cancelled" : "scheduled";
}

function statisticsOf(counts: ReadonlyMap<string, number> | undefined): EventStatistics {
  const count = (status: string) => counts?.get(status) ?? 0;
  return {
    going: count("attending") + count("accepted"),
    interested: count("interested") + count("tentative"),
    invited: { accepted: count("accepted"), tentative: count("tentative"), rejected: count("rejected"), pending: count("pending") },
  };
}

/**
 * Who sees which event, and events as the API shows them. A public event is
 * seen by anyone who may see its group (if it has one); an invite-only
 * event by its organizer and those invited. Any other viewer is told the
 * event does not exist.
 */
export class EventViews {
  constructor(
    private readonly deps: Pick<ServiceDeps, "config">,
    private readonly core: Pick<KithServices, "accountViews">,
    private readonly groups: GroupsServices,
    private readonly store: EventsStore,
  ) {}

  /** The event if the viewer may see it; `event.not_found` otherwise. */
  async visible(eventId: string, viewerId: string | null): Promise<EventRow> {
    const event = await this.store.find(eventId);
    if (!event || !(await this.sees(event, viewerId))) throw new KithError(eventErrors["event.not_found"]);
    return event;
  }

  async sees(event: EventRow, viewerId: string | null): Promise<boolean> {
    if (event.privacy !== "public") {
      if (viewerId === null) return false;
      if (event.organizer_id === viewerId) return true;
      return (await this.store.participant(event.id, viewerId)) !== undefined;
    }
    return event.group_id === null || (await this.#seesGroup(event.group_id, viewerId));
  }

  /** The events the viewer may see, of rows a query found (its group checks, once per group). */
  async filterVisible(events: readonly EventRow[], viewerId: string | null): Promise<EventRow[]> {
    const groups = new Map<string, boolean>();
    const kept: EventRow[] = [];
    for (const event of events) {
      if (event.group_id !== null) {
        if (!groups.has(event.group_id)) groups.set(event.group_id, await this.#seesGroup(event.group_id, viewerId));
        if (!groups.get(event.group_id)) continue;
      }
      kept.push(event);
    }
    return kept;
  }

  async #seesGroup(groupId: string, viewerId: string | null): Promise<boolean> {
    try {
      await this.groups.groups.conceal(groupId, viewerId);
      return true;
    } catch (error) {
      if (isKithError(error) && error.code === "group.not_found") return false;
      throw error;
    }
  }

  async renderOne(event: EventRow, viewerId: string | null): Promise<EventEntity> {
    const [rendered] = await this.render([event], viewerId);
    if (!rendered) throw new KithError(eventErrors["event.not_found"]);
    return rendered;
  }

  /** Events as the viewer sees them, with a fixed number of queries for the page. */
  async render(events: readonly EventRow[], viewerId: string | null): Promise<EventEntity[]> {
    const ids = events.map((event) => event.id);
    const [organizers, counts, mine, translations] = await Promise.all([
      this.core.accountViews.render([...new Set(events.map((event) => event.organizer_id))]),
      this.store.counts(ids),
      viewerId === null ? Promise.resolve(new Map<string, string>()) : this.store.statusesOf(ids, viewerId),
      this.store.currentTranslations(events),
    ]);
    const rendered: EventEntity[] = [];
    for (const event of events) {
      const organizer = organizers.get(event.organizer_id);
      if (!organizer) continue;
      rendered.push(this.#entity(event, organizer, counts.get(event.id), mine.get(event.id) ?? null, translations.get(event.id) ?? []));
    }
    return rendered;
  }

  #entity(
    event: EventRow,
    organizer: AccountEntity,
    counts: ReadonlyMap<string, number> | undefined,
    mine: string | null,
    translations: readonly { language: string; title: string; description: string; detected_language: string | null; provider: string }[],
  ): EventEntity {
    const hasPlace = event.location_name !== null || event.location_address !== null || event.latitude !== null;
    return {
      id: event.id,
      title: event.title,
      description: event.description,
      startTime: event.starts_at,
      endTime: event.ends_at,
      timeZone: event.time_zone,
      allDay: toBool(event.all_day),
      location:
        hasPlace || event.online_url !== null
          ? {
              name: event.location_name,
              address: event.location_address,
              latitude: event.latitude,
              longitude: event.longitude,
              url: event.online_url,
            }
          : null,
      privacy: event.privacy === "public" ? "public" : "invite_only",
      organizer,
      groupId: event.group_id,
      status: phaseOf(event),
      cancelled: event.cancelled_at !== null,
      cancelledAt: event.cancelled_at,
      deleted: event.deleted_at !== null,
      deletedAt: event.deleted_at,
      attendeeStatus: (mine as EventEntity["attendeeStatus"]) ?? null,
      statistics: statisticsOf(counts),
      translations: translations.map((translation) => ({
        language: translation.language,
        title: translation.title,
        description: translation.description,
        detectedSourceLanguage: translation.detected_language ?? "und",
        provider: translation.provider,
      })),
      url: this.urlOf(event.id),
      createdAt: event.created_at,
      updatedAt: event.updated_at,
    };
  }

  urlOf(eventId: string): string {
    return `${this.deps.config.origin}/api/v1/events/${eventId}`;
  }

  statisticsOf(counts: ReadonlyMap<string, number> | undefined): EventStatistics {
    return statisticsOf(counts);
  }

  async renderAttendees(rows: readonly ParticipantRow[]): Promise<EventAttendeeEntity[]> {
    const accounts = await this.core.accountViews.render(rows.map((row) => row.account_id));
    const attendees: EventAttendeeEntity[] = [];
    for (const row of rows) {
      const account = accounts.get(row.account_id);
      if (account) attendees.push({ id: row.id, account, status: row.status as EventAttendeeEntity["status"], updatedAt: row.updated_at });
    }
    return attendees;
  }
}
