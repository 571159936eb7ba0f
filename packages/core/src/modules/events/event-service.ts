import { KithError, isKithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { type Grant, holdsPermission } from "../../domain/permissions.js";
import { sanitizeHtml } from "../../platform/federation/html-sanitizer.js";
import { localAccountUrls } from "../../mastodon/serializers/account.js";
import type { KithServices } from "../core-services.js";
import type { GroupsServices } from "../groups/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { eventErrors, eventIds } from "./event-codes.js";
import type { EventAttendeeEntity, EventEntity, EventStatistics } from "./event-entities.js";
import { type EventChanges, type EventInput, type EventLocationInput, type MyEventsInput, isTimeZone } from "./event-input.js";
import type { EventNotices } from "./event-notices.js";
import { eventObject } from "./event-object.js";
import { type EventViews, phaseOf } from "./event-views.js";
import type { EventRow, EventsStore } from "./events-store.js";
import {
  type InviteRsvp,
  type PublicRsvp,
  type PublicRsvpAction,
  type Transition,
  eventLifecycle,
  inviteRsvp,
  publicRsvp,
} from "./rsvp.js";

/** The group application whose installation lets a group keep a calendar. */
export const CALENDAR_APP = "calendar";
/** What a member needs in a group to put an event in its calendar. */
export const GROUP_EVENT_PERMISSION = "GroupSettings.Manage";

/** A transition's new state, or its refusal thrown. */
function settle<S>(transition: Transition<S>): S {
  if (!transition.ok) throw new KithError(eventErrors[transition.code]);
  return transition.to;
}

function locationColumns(
  location: EventLocationInput | null,
): Pick<EventRow, "location_name" | "location_address" | "latitude" | "longitude" | "online_url"> {
  return {
    location_name: location?.name ?? null,
    location_address: location?.address ?? null,
    latitude: location?.latitude ?? null,
    longitude: location?.longitude ?? null,
    online_url: location?.url ?? null,
  };
}

function checkTimes(startTime: Date, endTime: Date | null, timeZone: string): void {
  if (endTime !== null && endTime.getTime() <= startTime.getTime()) throw new KithError(eventErrors["event.invalid_times"]);
  if (!isTimeZone(timeZone)) throw new KithError(eventErrors["event.invalid_time_zone"]);
}

/**
 * Calendar events: their organizer creates, edits, cancels and deletes them
 * (a deletion is soft: the event stays readable, marked deleted), invites to
 * invite-only ones and removes from them; others answer invitations or, on
 * public events, join, mark interest and leave. The RSVP rules are the pure
 * functions of `rsvp.ts`; this service loads, checks who asks, and stores.
 */
export class EventService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "ids" | "config">,
    private readonly core: Pick<KithServices, "accounts">,
    private readonly groups: GroupsServices,
    private readonly views: EventViews,
    private readonly notices: EventNotices,
    private readonly store: EventsStore,
  ) {}

  #now(): string {
    return this.deps.clock.now().toISOString();
  }

  async create(organizerId: string, grants: readonly Grant[], input: EventInput): Promise<EventEntity> {
    checkTimes(input.startTime, input.endTime, input.timeZone);
    if (input.groupId !== null) {
      await this.groups.apps.require(input.groupId, CALENDAR_APP, organizerId);
      if (!holdsPermission(grants, GROUP_EVENT_PERMISSION, input.groupId)) throw new KithError(eventErrors["event.group_forbidden"]);
    }
    const now = this.#now();
    const row: EventRow = {
      id: this.deps.ids.next("event"),
      organizer_id: organizerId,
      group_id: input.groupId,
      title: input.title,
      description: sanitizeHtml(input.description),
      starts_at: input.startTime.toISOString(),
      ends_at: input.endTime?.toISOString() ?? null,
      time_zone: input.timeZone,
      all_day: input.allDay,
      ...locationColumns(input.location),
      privacy: input.privacy,
      cancelled_at: null,
      deleted_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await this.store.insert(row);
    return this.views.renderOne(row, organizerId);
  }

  async get(eventId: string, viewerId: string | null): Promise<EventEntity> {
    return this.views.renderOne(await this.views.visible(eventId, viewerId), viewerId);
  }

  /** The event as an ActivityPub `Event` (Mobilizon's shape), as anyone may fetch a public one. */
  async activityObject(eventId: string, viewerId: string | null): Promise<Record<string, unknown>> {
    const event = await this.get(eventId, viewerId);
    const origin = this.deps.config.origin;
    const organizerUri = localAccountUrls(origin, event.organizer.username).uri;
    return eventObject(event, {
      organizerUri,
      followersUri: `${organizerUri}/followers`,
      groupUri: event.groupId === null ? null : await this.#groupUri(event.groupId),
    });
  }

  async #groupUri(groupId: string): Promise<string | null> {
    const group = await this.groups.groups.get(groupId, null).catch(() => null);
    return group === null ? null : localAccountUrls(this.deps.config.origin, group.name).uri;
  }

  /** The event if the viewer may see it and organizes it; `event.not_organizer` for one it only sees. */
  async #organized(eventId: string, actorId: string): Promise<EventRow> {
    const event = await this.views.visible(eventId, actorId);
    if (event.organizer_id !== actorId) throw new KithError(eventErrors["event.not_organizer"]);
    return event;
  }

  async update(eventId: string, actorId: string, changes: EventChanges): Promise<EventEntity> {
    const event = await this.#organized(eventId, actorId);
    settle(eventLifecycle(phaseOf(event), "edit"));
    const startTime = changes.startTime ?? new Date(event.starts_at);
    const endTime = changes.endTime !== undefined ? changes.endTime : event.ends_at === null ? null : new Date(event.ends_at);
    checkTimes(startTime, endTime, changes.timeZone ?? event.time_zone);
    if (changes.privacy !== undefined && changes.privacy !== event.privacy) await this.#checkNoParticipants(event.id);
    const set: Partial<EventRow> = {
      ...(changes.title !== undefined && { title: changes.title }),
      ...(changes.description !== undefined && { description: sanitizeHtml(changes.description) }),
      starts_at: startTime.toISOString(),
      ends_at: endTime?.toISOString() ?? null,
      ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
      ...(changes.allDay !== undefined && { all_day: changes.allDay }),
      ...(changes.location !== undefined && locationColumns(changes.location)),
      ...(changes.privacy !== undefined && { privacy: changes.privacy }),
      version: event.version + 1,
      updated_at: this.#now(),
    };
    await this.store.update(event.id, set);
    return this.get(event.id, actorId);
  }

  /** Cancels the event and tells everyone invited or taking part; it stays visible, marked cancelled. */
  async cancel(eventId: string, actorId: string): Promise<EventEntity> {
    const event = await this.#organized(eventId, actorId);
    settle(eventLifecycle(phaseOf(event), "cancel"));
    const now = this.#now();
    await this.store.update(event.id, { cancelled_at: now, updated_at: now, version: event.version + 1 });
    await this.notices.cancelled(event.id, actorId, await this.store.participantIds(event.id));
    return this.get(event.id, actorId);
  }

  /** The spec's soft delete: marked deleted (and cancelled), kept, still readable as deleted. */
  async delete(eventId: string, actorId: string): Promise<EventEntity> {
    const event = await this.#organized(eventId, actorId);
    settle(eventLifecycle(phaseOf(event), "delete"));
    const now = this.#now();
    await this.store.update(event.id, {
      deleted_at: now,
      cancelled_at: event.cancelled_at ?? now,
      updated_at: now,
      version: event.version + 1,
    });
    return this.get(event.id, actorId);
  }

  /** Join, interested or leave on a public event; answers the updated statistics. */
  async respondPublic(eventId: string, accountId: string, action: PublicRsvpAction): Promise<EventStatistics> {
    const event = await this.views.visible(eventId, accountId);
    if (event.privacy !== "public") throw new KithError(eventErrors["event.invite_only"]);
    const current = await this.store.participant(event.id, accountId);
    const next = settle(publicRsvp(phaseOf(event), (current?.status as PublicRsvp | undefined) ?? "none", action));
    await this.#setStatus(event.id, accountId, next, current?.id);
    return this.#statistics(event.id);
  }

  /** Accept, maybe or reject of an invitation; answers the event as the invitee now sees it. */
  async answer(eventId: string, accountId: string, action: "accept" | "maybe" | "reject"): Promise<EventEntity> {
    const event = await this.views.visible(eventId, accountId);
    if (event.privacy === "public") throw new KithError(eventErrors["event.not_invite_only"]);
    const current = await this.store.participant(event.id, accountId);
    const next = settle(inviteRsvp(phaseOf(event), (current?.status as InviteRsvp | undefined) ?? "none", action));
    await this.#setStatus(event.id, accountId, next, current?.id);
    return this.get(event.id, accountId);
  }

  /** The organizer invites a local user to an invite-only event. */
  async invite(eventId: string, actorId: string, inviteeId: string): Promise<EventAttendeeEntity> {
    const event = await this.#organized(eventId, actorId);
    if (event.privacy === "public") throw new KithError(eventErrors["event.not_invite_only"]);
    await this.#localUser(inviteeId);
    const current = await this.store.participant(event.id, inviteeId);
    const next = settle(inviteRsvp(phaseOf(event), (current?.status as InviteRsvp | undefined) ?? "none", "invite"));
    await this.#setStatus(event.id, inviteeId, next, current?.id);
    return this.#attendee(event.id, inviteeId);
  }

  /** The organizer revokes an invitation, or removes someone from the event (public or not). */
  async remove(eventId: string, actorId: string, accountId: string): Promise<void> {
    const event = await this.#organized(eventId, actorId);
    const current = await this.store.participant(event.id, accountId);
    settle(inviteRsvp(phaseOf(event), current ? "pending" : "none", "remove"));
    await this.store.setStatus(null, event.id, accountId);
  }

  async attendees(eventId: string, viewerId: string | null, status: string | undefined, page: PageRequest): Promise<EventAttendeeEntity[]> {
    const event = await this.views.visible(eventId, viewerId);
    const rows = await this.store.participantsPage(event.id, status ? [status] : null, page);
    return this.views.renderAttendees(rows);
  }

  /** Those attending the event whom the viewer follows. */
  async mutual(eventId: string, viewerId: string, page: PageRequest): Promise<EventAttendeeEntity[]> {
    const event = await this.views.visible(eventId, viewerId);
    return this.views.renderAttendees(await this.store.followedAttendeesPage(event.id, viewerId, page));
  }

  /** Events of a user or group (or every visible one), newest first; guests see public events only. */
  async list(viewerId: string | null, filter: { organizerId?: string; ownerId?: string }, page: PageRequest): Promise<EventEntity[]> {
    const owner = filter.ownerId;
    const rows = await this.store.page(
      {
        viewerId,
        ...(filter.organizerId !== undefined && { organizerId: filter.organizerId }),
        ...(owner !== undefined && (owner.startsWith("gr_") ? { groupId: owner } : { organizerId: owner, noGroup: true })),
      },
      page,
    );
    return this.views.render(await this.views.filterVisible(rows, viewerId), viewerId);
  }

  async mine(accountId: string, input: MyEventsInput, page: PageRequest): Promise<EventEntity[]> {
    const rows = await this.store.pageMine(
      { accountId, now: this.#now(), past: input.past, organizedOnly: input.organized, pendingOnly: input.pending },
      page,
    );
    return this.views.render(rows, accountId);
  }

  async #setStatus(eventId: string, accountId: string, status: string, existingId: string | undefined): Promise<void> {
    if (status === "none") {
      await this.store.setStatus(null, eventId, accountId);
      return;
    }
    const now = this.#now();
    await this.store.setStatus(
      {
        id: existingId ?? this.deps.ids.next(eventIds.eventParticipant),
        event_id: eventId,
        account_id: accountId,
        status,
        created_at: now,
        updated_at: now,
      },
      eventId,
      accountId,
    );
  }

  /** Public and invite-only standings differ in kind: an event with any keeps its privacy. */
  async #checkNoParticipants(eventId: string): Promise<void> {
    const counts = (await this.store.counts([eventId])).get(eventId);
    if (counts && [...counts.values()].some((count) => count > 0)) throw new KithError(eventErrors["event.privacy_locked"]);
  }

  async #statistics(eventId: string): Promise<EventStatistics> {
    return this.views.statisticsOf((await this.store.counts([eventId])).get(eventId));
  }

  async #attendee(eventId: string, accountId: string): Promise<EventAttendeeEntity> {
    const row = await this.store.participant(eventId, accountId);
    const [attendee] = row ? await this.views.renderAttendees([row]) : [];
    if (!attendee) throw new KithError(eventErrors["event.attendee_not_found"]);
    return attendee;
  }

  async #localUser(accountId: string): Promise<void> {
    try {
      await this.core.accounts.findById(accountId);
    } catch (error) {
      if (isKithError(error) && error.code === "account.not_found") throw new KithError(eventErrors["event.invitee_not_found"]);
      throw error;
    }
  }
}
