import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { moduleRoute } from "../module.js";
import type { CalendarFile } from "./calendar-feeds.js";
import type { EventsModuleServices } from "./events-module-services.js";

const route = moduleRoute<EventsModuleServices>();

const TAGS = ["events"];
const CALENDAR = "text/calendar";
const NAME = z.string().min(1).max(64);

/** The file, or 304 when the client's copy is current (`If-None-Match` first, then `If-Modified-Since`, as RFC 9110 orders them). */
function calendarReply(request: Request, file: CalendarFile, filename: string): Reply {
  const headers = {
    etag: file.etag,
    "last-modified": file.lastModified.toUTCString(),
    "cache-control": "private, max-age=0, must-revalidate",
  };
  const match = request.headers.get("if-none-match");
  if (match !== null) {
    const tags = match.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
    if (tags.includes(file.etag) || tags.includes("*")) return Reply.empty(304, headers);
  } else {
    const since = Date.parse(request.headers.get("if-modified-since") ?? "");
    if (!Number.isNaN(since) && file.lastModified.getTime() <= since) return Reply.empty(304, headers);
  }
  return Reply.text(file.body, `${CALENDAR}; charset=utf-8`, {
    headers: { ...headers, "content-disposition": `inline; filename="${filename}.ics"` },
  });
}

function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

/** The iCalendar files of the spec's "Calendar events": three feeds and one event's. */
export const calendarRoutes = [
  route({
    method: "GET",
    path: "/api/v1/events/calendar/g/{groupname}.ics",
    summary: "A group's public calendar: its events but invite-only ones, while the group has public export on",
    tags: TAGS,
    access: publicAccess,
    params: z.object({ groupname: NAME }),
    produces: CALENDAR,
    response: z.string(),
    handler: async ({ params, module, request }) =>
      calendarReply(request, await module.feeds.groupFeed(params.groupname), params.groupname),
  }),
  route({
    method: "GET",
    path: "/api/v1/events/calendar/p/{id}.ics",
    summary: "A user's or group's private calendar, by its private id, at the detail level and scope its owner chose",
    tags: TAGS,
    access: publicAccess,
    params: z.object({ id: z.string().min(1).max(128) }),
    produces: CALENDAR,
    response: z.string(),
    handler: async ({ params, module, request }) => calendarReply(request, await module.feeds.privateFeed(params.id), "calendar"),
  }),
  route({
    method: "GET",
    path: "/api/v1/events/calendar/u/{username}.ics",
    summary: "A user's public calendar: its events but invite-only ones, while the user has public export on",
    tags: TAGS,
    access: publicAccess,
    params: z.object({ username: NAME }),
    produces: CALENDAR,
    response: z.string(),
    handler: async ({ params, module, request }) => calendarReply(request, await module.feeds.userFeed(params.username), params.username),
  }),
  route({
    method: "GET",
    path: "/api/v1/events/{eventId}.ics",
    summary: "One event as an iCalendar file",
    tags: TAGS,
    access: publicAccess,
    params: z.object({ eventId: z.string().min(1).max(64) }),
    produces: CALENDAR,
    response: z.string(),
    handler: async ({ caller, params, module, request }) =>
      calendarReply(request, await module.feeds.eventFile(params.eventId, viewerOf(caller)), params.eventId),
  }),
];
