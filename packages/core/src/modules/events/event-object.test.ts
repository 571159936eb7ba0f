import { describe, expect, it } from "vitest";
import type { EventEntity } from "./event-entities.js";
import { eventObject } from "./event-object.js";

const base: EventEntity = {
  id: "ev_1",
  title: "Picnic",
  description: "<p>Bring food</p>",
  startTime: "2027-06-01T10:00:00.000Z",
  endTime: "2027-06-01T12:00:00.000Z",
  timeZone: "Europe/Paris",
  allDay: false,
  location: { name: "Park", address: "1 Main St", latitude: 48.85, longitude: 2.35, url: null },
  privacy: "public",
  organizer: {} as EventEntity["organizer"],
  groupId: null,
  status: "scheduled",
  cancelled: false,
  cancelledAt: null,
  deleted: false,
  deletedAt: null,
  attendeeStatus: null,
  statistics: { going: 3, interested: 1, invited: { accepted: 0, tentative: 0, rejected: 0, pending: 0 } },
  translations: [],
  url: "https://kith.test/api/v1/events/ev_1",
  createdAt: "2027-01-01T00:00:00.000Z",
  updatedAt: "2027-01-02T00:00:00.000Z",
};
const actors = { organizerUri: "https://kith.test/users/ann", followersUri: "https://kith.test/users/ann/followers", groupUri: null };

describe("events as Mobilizon-shaped ActivityPub objects", () => {
  it("carries times, zone, place, join mode, status and participants", () => {
    expect(eventObject(base, actors)).toMatchObject({
      type: "Event",
      id: base.url,
      name: "Picnic",
      startTime: base.startTime,
      endTime: base.endTime,
      timezone: "Europe/Paris",
      location: { type: "Place", name: "Park", address: { type: "PostalAddress", streetAddress: "1 Main St" }, latitude: 48.85 },
      joinMode: "free",
      "ical:status": "CONFIRMED",
      participantCount: 3,
      attributedTo: actors.organizerUri,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [actors.followersUri],
    });
  });

  it("marks a cancelled event, an invite-only one's join mode and addressing, and a group's attribution", () => {
    const object = eventObject(
      { ...base, cancelled: true, privacy: "invite_only" },
      { ...actors, groupUri: "https://kith.test/users/club" },
    );
    expect(object).toMatchObject({
      "ical:status": "CANCELLED",
      joinMode: "invite",
      attributedTo: "https://kith.test/users/club",
      to: [actors.followersUri],
      cc: [],
    });
  });

  it("is online, with its link, when it has an address on the web and no place", () => {
    const object = eventObject(
      { ...base, location: { name: null, address: null, latitude: null, longitude: null, url: "https://meet.example" } },
      actors,
    );
    expect(object).toMatchObject({ isOnline: true, attachment: [{ type: "Link", href: "https://meet.example" }] });
    expect(object).not.toHaveProperty("location");
  });
});
