import type { EventEntity } from "./event-entities.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/**
 * The JSON-LD context of an event as Mobilizon publishes one: its `mz:`
 * terms (joinMode, participantCount, timezone, isOnline), schema.org's
 * PostalAddress, and iCalendar's status.
 */
export const EVENT_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    ical: "http://www.w3.org/2002/12/cal/ical#",
    mz: "https://joinmobilizon.org/ns#",
    sc: "http://schema.org#",
    joinMode: { "@id": "mz:joinMode", "@type": "mz:joinModeType" },
    participantCount: { "@id": "mz:participantCount", "@type": "sc:Integer" },
    timezone: { "@id": "mz:timezone", "@type": "sc:Text" },
    isOnline: { "@id": "mz:isOnline", "@type": "sc:Boolean" },
    PostalAddress: "sc:PostalAddress",
    address: { "@id": "sc:address", "@type": "sc:PostalAddress" },
    streetAddress: "sc:streetAddress",
  },
] as const;

/** Where an organizer's actor and followers live, for the object's attribution and addressing. */
export interface EventObjectActors {
  readonly organizerUri: string;
  readonly followersUri: string;
  /** The group's actor when the event is in a group's calendar (Mobilizon attributes it to the group). */
  readonly groupUri: string | null;
}

/**
 * An event as an ActivityPub `Event` shaped as Mobilizon publishes one, so
 * that Mobilizon, Gancio and other servers read its time, place and state:
 * `startTime`/`endTime`, `timezone`, `location` as a `Place` with a
 * `PostalAddress` and coordinates, `joinMode` (`free` for public events,
 * `invite` for invite-only ones), `ical:status` and `participantCount`.
 * Public events are addressed to everyone; invite-only ones only to the
 * organizer's followers (their invitees are told directly).
 */
export function eventObject(event: EventEntity, actors: EventObjectActors): Record<string, unknown> {
  const location = event.location;
  const place =
    location && (location.name !== null || location.address !== null || location.latitude !== null)
      ? {
          type: "Place",
          name: location.name ?? location.address ?? "",
          ...(location.address !== null && { address: { type: "PostalAddress", streetAddress: location.address } }),
          ...(location.latitude !== null && { latitude: location.latitude }),
          ...(location.longitude !== null && { longitude: location.longitude }),
        }
      : null;
  const isPublic = event.privacy === "public";
  return {
    "@context": EVENT_CONTEXT,
    id: event.url,
    type: "Event",
    name: event.title,
    content: event.description,
    mediaType: "text/html",
    startTime: event.startTime,
    ...(event.endTime !== null && { endTime: event.endTime }),
    timezone: event.timeZone,
    ...(place !== null && { location: place }),
    isOnline: location?.url != null && place === null,
    ...(location?.url != null && { attachment: [{ type: "Link", name: "Website", href: location.url }] }),
    joinMode: isPublic ? "free" : "invite",
    "ical:status": event.cancelled ? "CANCELLED" : "CONFIRMED",
    participantCount: event.statistics.going,
    attributedTo: actors.groupUri ?? actors.organizerUri,
    actor: actors.organizerUri,
    url: event.url,
    published: event.createdAt,
    updated: event.updatedAt,
    to: isPublic ? [PUBLIC] : [actors.followersUri],
    cc: isPublic ? [actors.followersUri] : [],
  };
}
