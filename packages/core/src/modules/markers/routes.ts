import { z } from "zod";
import { MARKER_TIMELINES, type MarkerRecord } from "./marker-service.js";
import { authenticated } from "../../platform/http/access.js";
import { type MarkerEntity, MarkersJson } from "../../mastodon/entities/marker.js";
import { route } from "../core-route.js";
import { zInt, zList } from "../../platform/http/schemas.js";
import { signedInUser } from "../timelines/routes.js";

/** Markers: read positions in the home and notifications timelines, shared by a user's clients. */

function serializeMarkers(markers: readonly MarkerRecord[]): Partial<Record<string, MarkerEntity>> {
  return Object.fromEntries(markers.map((m) => [m.timeline, { last_read_id: m.lastReadId, version: m.version, updated_at: m.updatedAt }]));
}

const Position = z.object({ last_read_id: z.string().min(1).max(64), version: zInt.optional() });

export const markerRoutes = [
  route({
    method: "GET",
    path: "/api/v1/markers",
    summary: "The caller's markers of the timelines named by timeline[] (home, notifications)",
    tags: ["markers"],
    access: authenticated,
    scopes: ["read:statuses"],
    query: z.object({ timeline: zList(z.enum(MARKER_TIMELINES)).optional() }),
    response: MarkersJson,
    handler: async ({ caller, query, services }) =>
      serializeMarkers(await services.markers.get(signedInUser(caller).accountId, query.timeline ?? [])),
  }),
  route({
    method: "POST",
    path: "/api/v1/markers",
    summary: "Saves markers (home[last_read_id], notifications[last_read_id]); 409 when a marker changed meanwhile",
    description:
      "Each save bumps the marker's version. `home[version]` / `notifications[version]` (Kith's addition, optional) name the version the client last read: a save over a newer one is refused with 409. Moving the notifications marker marks the notifications up to it read.",
    tags: ["markers"],
    access: authenticated,
    scopes: ["write:statuses"],
    body: z.object({ home: Position.optional(), notifications: Position.optional() }),
    response: MarkersJson,
    handler: async ({ caller, body, services }) => {
      const positions = {
        ...(body.home && { home: body.home.last_read_id }),
        ...(body.notifications && { notifications: body.notifications.last_read_id }),
      };
      const versions = {
        ...(body.home?.version !== undefined && { home: body.home.version }),
        ...(body.notifications?.version !== undefined && { notifications: body.notifications.version }),
      };
      return serializeMarkers(await services.markers.save(signedInUser(caller).accountId, positions, versions));
    },
  }),
];
