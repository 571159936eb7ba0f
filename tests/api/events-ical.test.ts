/**
 * The iCalendar files of calendar events, parsed back with ical.js (the
 * parser Thunderbird uses), independent of the library that writes them:
 * every event present, local times right on both sides of a DST change,
 * cancelled events as STATUS:CANCELLED, invite-only events never in public
 * feeds; conditional requests (ETag, Last-Modified, 304); the private feed
 * and its regeneration; detail level and export scope; a group's feed.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import ICAL from "ical.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";

interface ParsedEvent {
  readonly uid: string;
  readonly summary: string;
  readonly description: string | null;
  readonly start: string;
  readonly end: string;
  readonly tzid: string | null;
  readonly status: string | null;
}

/** The events of an iCalendar text, with the zones it carries registered first, as a client reads them. */
function parseCalendar(text: string): ParsedEvent[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone);
  return calendar.getAllSubcomponents("vevent").map((component) => {
    const event = new ICAL.Event(component);
    const description = component.getFirstPropertyValue("description");
    const status = component.getFirstPropertyValue("status");
    return {
      uid: event.uid,
      summary: event.summary,
      description: typeof description === "string" ? description : null,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      tzid: component.getFirstProperty("dtstart")?.getParameter("tzid")?.toString() ?? null,
      status: typeof status === "string" ? status : null,
    };
  });
}

describeOnEngines("calendar events as iCalendar", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let friend: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("icalowner");
    friend = await kith.createUser("icalfriend");
  });
  afterAll(() => kith.close());

  async function createEvent(token: string, body: Record<string, unknown>): Promise<{ id: string }> {
    const made = await call(kith, "POST", "/api/v1/events", token, { title: `Ical ${++serial}`, timeZone: "Europe/Paris", ...body });
    expect(made.status).toBe(200);
    return made.body as { id: string };
  }

  const ics = (path: string, headers: Record<string, string> = {}) => kith.request("GET", path, { headers });
  const uidOf = (id: string) => `${id}@${new URL(kith.config.origin).host}`;

  it("serves one event as text/calendar with its zone, and answers 304 to a current copy", async () => {
    const event = await createEvent(owner.token, {
      title: "Café, concert; and more",
      description: "<p>Line one</p><p>Line two</p>",
      startTime: "2027-06-01T17:00:00Z",
      endTime: "2027-06-01T19:30:00Z",
      location: { name: "Le Bataclan", address: "50 Bd Voltaire, Paris" },
    });
    const response = await ics(`/api/v1/events/${event.id}.ics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/calendar/);
    const text = await response.text();
    expect(text).toContain("BEGIN:VTIMEZONE");
    expect(text).toContain("DTSTART;TZID=Europe/Paris:20270601T190000");
    const [parsed] = parseCalendar(text);
    expect(parsed).toMatchObject({
      uid: uidOf(event.id),
      summary: "Café, concert; and more",
      start: "2027-06-01T17:00:00.000Z",
      end: "2027-06-01T19:30:00.000Z",
      tzid: "Europe/Paris",
      status: "CONFIRMED",
    });
    expect(parsed?.description).toContain("Line one");

    const etag = response.headers.get("etag") ?? "";
    const lastModified = response.headers.get("last-modified") ?? "";
    expect(etag).toMatch(/^".+"$/);
    expect((await ics(`/api/v1/events/${event.id}.ics`, { "if-none-match": etag })).status).toBe(304);
    expect((await ics(`/api/v1/events/${event.id}.ics`, { "if-modified-since": lastModified })).status).toBe(304);
    kith.clock.advance(2_000);
    await call(kith, "PUT", `/api/v1/events/${event.id}`, owner.token, { title: "Renamed" });
    const changed = await ics(`/api/v1/events/${event.id}.ics`, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  it("keeps invite-only events from those who may not see them", async () => {
    const hidden = await createEvent(owner.token, { privacy: "invite_only", startTime: "2027-06-02T10:00:00Z" });
    expect((await ics(`/api/v1/events/${hidden.id}.ics`)).status).toBe(404);
    const mine = await kith.request("GET", `/api/v1/events/${hidden.id}.ics`, { token: owner.token });
    expect(mine.status).toBe(200);
  });

  describe("a user's feeds", () => {
    let user: TestUser;
    const made: Record<string, { id: string }> = {};

    beforeAll(async () => {
      user = await kith.createUser("icalfeeds");
      // Paris leaves CET (UTC+1) for CEST (UTC+2) on 28 March 2027: 10:00 local is 09:00Z before, 08:00Z after.
      made.beforeDst = await createEvent(user.token, {
        title: "Before DST",
        startTime: "2027-03-27T09:00:00Z",
        endTime: "2027-03-27T10:00:00Z",
      });
      made.afterDst = await createEvent(user.token, {
        title: "After DST",
        startTime: "2027-03-29T08:00:00Z",
        endTime: "2027-03-29T09:00:00Z",
      });
      made.cancelled = await createEvent(user.token, { title: "Called off", startTime: "2027-04-01T08:00:00Z" });
      await call(kith, "POST", `/api/v1/events/${made.cancelled.id}/cancel`, user.token);
      made.deleted = await createEvent(user.token, { title: "Deleted", startTime: "2027-04-02T08:00:00Z" });
      await call(kith, "DELETE", `/api/v1/events/${made.deleted.id}`, user.token);
      made.inviteOnly = await createEvent(user.token, {
        title: "Secret dinner",
        privacy: "invite_only",
        startTime: "2027-04-03T18:00:00Z",
      });
      made.attended = await createEvent(friend.token, { title: "Friend's picnic", startTime: "2027-04-04T10:00:00Z" });
      await call(kith, "POST", `/api/v1/events/${made.attended.id}/join`, user.token);
    });

    it("serves the public feed only once the user turns it on, without invite-only or deleted events", async () => {
      const path = `/api/v1/events/calendar/u/${user.account.username}.ics`;
      expect((await ics(path)).status).toBe(404);
      const turned = await call(kith, "POST", "/api/v1/events/settings/update", user.token, { publicCalendar: true });
      expect(turned).toMatchObject({ status: 200, body: { publicCalendar: true, detailLevel: "full", exportScope: "organized" } });
      const response = await ics(path);
      expect(response.status).toBe(200);
      const events = parseCalendar(await response.text());
      const byUid = new Map(events.map((event) => [event.uid, event]));
      expect([...byUid.keys()].sort()).toEqual([made.beforeDst, made.afterDst, made.cancelled].map((e) => uidOf(e?.id ?? "")).sort());
      expect(byUid.get(uidOf(made.beforeDst?.id ?? ""))).toMatchObject({ start: "2027-03-27T09:00:00.000Z", tzid: "Europe/Paris" });
      expect(byUid.get(uidOf(made.afterDst?.id ?? ""))).toMatchObject({ start: "2027-03-29T08:00:00.000Z", tzid: "Europe/Paris" });
      expect(byUid.get(uidOf(made.cancelled?.id ?? ""))).toMatchObject({ status: "CANCELLED" });
      expect(await (await ics(path)).text()).not.toContain("Secret dinner");
      expect((await ics("/api/v1/events/calendar/u/nobodyhere.ics")).status).toBe(404);
    });

    it("serves the private feed with invite-only events, and a regenerated id kills the old link", async () => {
      const settings = await call(kith, "GET", "/api/v1/events/settings", user.token);
      const privateId = (settings.body as { privateId: string }).privateId;
      expect(privateId).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const path = (id: string) => `/api/v1/events/calendar/p/${id}.ics`;
      const events = parseCalendar(await (await ics(path(privateId))).text());
      expect(events.map((event) => event.summary)).toContain("Secret dinner");
      const regenerated = await call(kith, "POST", "/api/v1/events/settings/regeneratePrivateId", user.token);
      const newId = (regenerated.body as { privateId: string }).privateId;
      expect(newId).not.toBe(privateId);
      expect((await ics(path(privateId))).status).toBe(404);
      expect((await ics(path(newId))).status).toBe(200);
    });

    it("tells only busy times at the busy level, and adds attended events with the attended scope", async () => {
      await call(kith, "POST", "/api/v1/events/settings/update", user.token, { detailLevel: "busy", exportScope: "attended" });
      const settings = await call(kith, "GET", "/api/v1/events/settings", user.token);
      const text = await (await ics(`/api/v1/events/calendar/p/${(settings.body as { privateId: string }).privateId}.ics`)).text();
      const events = parseCalendar(text);
      expect(new Set(events.map((event) => event.summary))).toEqual(new Set(["Busy"]));
      expect(events.every((event) => event.description === null)).toBe(true);
      expect(events.map((event) => event.uid)).toContain(uidOf(made.attended?.id ?? ""));
      expect(text).not.toContain("Secret dinner");
      await call(kith, "POST", "/api/v1/events/settings/update", user.token, { detailLevel: "full", exportScope: "organized" });
    });
  });

  it("serves a group's feed once the group's calendar is public, never with invite-only events", async () => {
    const group = await createGroup(kith, owner.token);
    await createEvent(owner.token, { title: "Group meetup", groupId: group.id, startTime: "2027-05-01T10:00:00Z" });
    await createEvent(owner.token, { title: "Board only", groupId: group.id, privacy: "invite_only", startTime: "2027-05-02T10:00:00Z" });
    const path = `/api/v1/events/calendar/g/${group.name}.ics`;
    expect((await ics(path)).status).toBe(404);
    const refused = await call(kith, "POST", "/api/v1/events/settings/update", friend.token, { groupId: group.id, publicCalendar: true });
    expect(refused.status).toBe(403);
    const turned = await call(kith, "POST", "/api/v1/events/settings/update", owner.token, { groupId: group.id, publicCalendar: true });
    expect(turned).toMatchObject({ status: 200, body: { ownerId: group.id, publicCalendar: true } });
    const events = parseCalendar(await (await ics(path)).text());
    expect(events.map((event) => event.summary)).toEqual(["Group meetup"]);
  });
});
