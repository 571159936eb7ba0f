import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { ACCOUNTS_PAGE, POSTS_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { moduleRoute } from "../module.js";
import { CalendarSettingsJson, EventAttendeeJson, EventJson, EventStatisticsJson, EventTranslationJson } from "./event-entities.js";
import type { EventsModuleServices } from "./events-module-services.js";
import {
  AttendeesQuery,
  CreateEventBody,
  EventListQuery,
  MyEventsQuery,
  SearchQuery,
  SettingsQuery,
  SettingsUpdateBody,
  TranslateBody,
  UpdateEventBody,
} from "./event-schemas.js";
import type { CalendarOwner } from "./calendar-settings-service.js";
import { calendarRoutes } from "./calendar-routes.js";

const route = moduleRoute<EventsModuleServices>();

const TAGS = ["events"];
const READ = ["read:statuses"];
const WRITE = ["write:statuses"];
const BASE = "/api/v1/events";
const EventParams = z.object({ eventId: z.string().min(1).max(64) });
const AttendeeParams = z.object({ eventId: z.string().min(1).max(64), userId: z.string().min(1).max(64) });

function actorOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

async function ownerOf(caller: Caller, groupId: string | undefined): Promise<CalendarOwner> {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return { actorId: caller.accountId, grants: await caller.grants(), groupId: groupId ?? null };
}

/** The three answers of an invitation share everything but the answer. */
function answerRoute(action: "accept" | "maybe" | "reject", summary: string) {
  return route({
    method: "POST",
    path: `${BASE}/{eventId}/${action}`,
    summary,
    description:
      "Invited users only (event.not_invited, 403); invite-only events only (event.not_invite_only, 409); " +
      "not on a cancelled or deleted event (event.cancelled, event.deleted, 409).",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: EventParams,
    response: EventJson,
    handler: async ({ caller, params, module }) => module.events.answer(params.eventId, actorOf(caller), action),
  });
}

/** Join, interested and leave of a public event share everything but the action. */
function publicResponseRoute(method: "POST" | "DELETE", path: string, action: "join" | "interested" | "leave", summary: string) {
  return route({
    method,
    path: `${BASE}/{eventId}/${path}`,
    summary,
    description:
      "Public events only (event.invite_only, 409); not on a cancelled or deleted event (event.cancelled, event.deleted, 409)" +
      (action === "leave" ? "; only for someone attending or interested (event.not_participating, 409)." : "."),
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: EventParams,
    response: EventStatisticsJson,
    handler: async ({ caller, params, module }) => module.events.respondPublic(params.eventId, actorOf(caller), action),
  });
}

/** The spec's "Calendar events": 26 endpoints, the iCalendar ones in `calendar-routes.ts`. */
export const eventRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "Events, newest first: guests see public ones; filter by organizer or owner (a user or a group)",
    tags: TAGS,
    access: publicAccess,
    scopes: READ,
    query: idPageQuery.extend(EventListQuery.shape),
    response: z.array(EventJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const filter = { ...(query.organizerId && { organizerId: query.organizerId }), ...(query.ownerId && { ownerId: query.ownerId }) };
      return pagedReply(url, await module.events.list(viewerOf(caller), filter, page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Creates an event; the caller is its organizer",
    description:
      "With `groupId` the event goes in the group's calendar: the group must have the calendar application and the caller " +
      "GroupSettings.Manage in it (event.group_forbidden, 403).",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: CreateEventBody,
    response: EventJson,
    handler: async ({ caller, body, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      return module.events.create(caller.accountId, await caller.grants(), { ...body, groupId: body.groupId ?? null });
    },
  }),
  ...calendarRoutes,
  route({
    method: "GET",
    path: `${BASE}/my`,
    summary: "The caller's events (organized, invited to or taking part in), upcoming unless `past`",
    description: "`organized` keeps those the caller organizes; `pending` those whose invitation waits for the caller's answer.",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    query: idPageQuery.extend(MyEventsQuery.shape),
    response: z.array(EventJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const filter = { past: query.past ?? false, organized: query.organized ?? false, pending: query.pending ?? false };
      return pagedReply(url, await module.events.mine(actorOf(caller), filter, page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/search`,
    summary: "Searches events: `following`, `local`, or `fasp`",
    description:
      "`local` and `fasp` need `q`, a date range (`from`, `to`), or a point and radius (`latitude`, `longitude`, `radiusKm`) " +
      "(event.search_filter_required, 422); `following` needs a signed-in caller. `fasp` answers event.fasp_not_configured (503) " +
      "while no FASP discovery provider is configured.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ,
    query: idPageQuery.extend(SearchQuery.shape),
    response: z.array(EventJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const { latitude, longitude, radiusKm } = query;
      const near =
        latitude !== undefined && longitude !== undefined && radiusKm !== undefined ? { latitude, longitude, radiusKm } : undefined;
      const input = {
        mode: query.mode,
        query: query.q,
        from: query.from,
        to: query.to,
        near,
        groupId: query.groupId,
      };
      return pagedReply(url, await module.search.search(viewerOf(caller), input, page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/settings`,
    summary: "Calendar export settings of the caller, or of a group (`groupId`, GroupSettings.Manage in it)",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    query: SettingsQuery,
    response: CalendarSettingsJson,
    handler: async ({ caller, query, module }) => module.settings.get(await ownerOf(caller, query.groupId)),
  }),
  route({
    method: "POST",
    path: `${BASE}/settings/regeneratePrivateId`,
    summary: "A new private calendar id; the old link stops working",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: SettingsQuery,
    response: CalendarSettingsJson,
    handler: async ({ caller, body, module }) => module.settings.regeneratePrivateId(await ownerOf(caller, body.groupId)),
  }),
  route({
    method: "POST",
    path: `${BASE}/settings/update`,
    summary: "Updates public calendar export, detail level (full or busy) and export scope (organized or attended)",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: SettingsUpdateBody,
    response: CalendarSettingsJson,
    handler: async ({ caller, body, module }) => {
      const { groupId, ...changes } = body;
      return module.settings.update(await ownerOf(caller, groupId), changes);
    },
  }),
  route({
    method: "PUT",
    path: `${BASE}/{eventId}`,
    summary: "Updates an event (organizer only: event.not_organizer, 403; not a deleted one: event.deleted, 409)",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: EventParams,
    body: UpdateEventBody,
    response: EventJson,
    handler: async ({ caller, params, body, module }) => {
      const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
      return module.events.update(params.eventId, actorOf(caller), changes);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{eventId}`,
    summary: "An event with the caller's attendee status, statistics and kept translations; a deleted one shows as deleted",
    description:
      "Asked for `application/activity+json` (or ActivityStreams' JSON-LD), the event is answered as an ActivityPub `Event` " +
      "shaped as Mobilizon publishes one: startTime, endTime, timezone, location as a Place, joinMode, ical:status, participantCount.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ,
    params: EventParams,
    response: EventJson,
    handler: async ({ caller, params, module, request }) => {
      if (!/application\/(activity\+json|ld\+json)/.test(request.headers.get("accept") ?? "")) {
        return module.events.get(params.eventId, viewerOf(caller));
      }
      const object = await module.events.activityObject(params.eventId, viewerOf(caller));
      return Reply.text(JSON.stringify(object), "application/activity+json; charset=utf-8", { headers: { vary: "Accept" } });
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{eventId}`,
    summary: "Soft-deletes an event (organizer only): marked deleted and cancelled, still readable",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: EventParams,
    response: EventJson,
    handler: async ({ caller, params, module }) => module.events.delete(params.eventId, actorOf(caller)),
  }),
  answerRoute("accept", "Accepts an invitation to an invite-only event"),
  route({
    method: "GET",
    path: `${BASE}/{eventId}/attendees`,
    summary: "Who is invited to or takes part in the event, with each one's status; `status` narrows",
    tags: TAGS,
    access: publicAccess,
    scopes: READ,
    params: EventParams,
    query: idPageQuery.extend(AttendeesQuery.shape),
    response: z.array(EventAttendeeJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      return pagedReply(url, await module.events.attendees(params.eventId, viewerOf(caller), query.status, page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{eventId}/attendees/{userId}`,
    summary: "Invites a local user to an invite-only event (organizer only); inviting again changes nothing",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: AttendeeParams,
    response: EventAttendeeJson,
    handler: async ({ caller, params, module }) => module.events.invite(params.eventId, actorOf(caller), params.userId),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{eventId}/attendees/{userId}`,
    summary: "Revokes an invitation or removes the user from the event (organizer only)",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: AttendeeParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.events.remove(params.eventId, actorOf(caller), params.userId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{eventId}/cancel`,
    summary: "Cancels the event (organizer only), notifying everyone invited or taking part (`event.cancelled`)",
    description: "A cancelled event stays visible, marked cancelled; cancelling it again is event.already_cancelled (409).",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: EventParams,
    response: EventJson,
    handler: async ({ caller, params, module }) => module.events.cancel(params.eventId, actorOf(caller)),
  }),
  publicResponseRoute("POST", "interested", "interested", "Marks interest in a public event; answers the updated statistics"),
  publicResponseRoute("POST", "join", "join", "Confirms attendance of a public event; answers the updated statistics"),
  publicResponseRoute("DELETE", "joinOrInterested", "leave", "Withdraws attendance or interest; answers the updated statistics"),
  answerRoute("maybe", "Answers an invitation tentatively"),
  route({
    method: "GET",
    path: `${BASE}/{eventId}/mutual`,
    summary: "Those attending the event whom the caller follows",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    params: EventParams,
    query: idPageQuery,
    response: z.array(EventAttendeeJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      return pagedReply(url, await module.events.mutual(params.eventId, actorOf(caller), page), page.limit);
    },
  }),
  answerRoute("reject", "Declines an invitation"),
  route({
    method: "POST",
    path: `${BASE}/{eventId}/translate`,
    summary: "Translates the title and description into `lang`, through the AI provider; kept per language and version",
    tags: TAGS,
    access: publicAccess,
    scopes: READ,
    params: EventParams,
    body: TranslateBody,
    response: EventTranslationJson,
    handler: async ({ caller, params, body, module }) => module.translation.translate(params.eventId, viewerOf(caller), body.lang),
  }),
];
