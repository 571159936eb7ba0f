/**
 * Calendar events through the API: the 22 JSON endpoints of the spec's
 * "Calendar events", each row of its event state table and the event rows
 * of its errors table (refusals with their codes), cancellation told to
 * those concerned, the soft delete, paging with `Link`, search modes and
 * translations.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";

interface EventJson {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly startTime: string;
  readonly endTime: string | null;
  readonly privacy: string;
  readonly status: string;
  readonly cancelled: boolean;
  readonly deleted: boolean;
  readonly groupId: string | null;
  readonly attendeeStatus: string | null;
  readonly organizer: { readonly id: string };
  readonly statistics: { going: number; interested: number; invited: Record<string, number> };
  readonly translations: readonly { language: string; title: string }[];
}

const HOUR = 60 * 60 * 1000;

describeOnEngines("calendar events", (engine) => {
  let kith: TestKith;
  let organizer: TestUser;
  let guestUser: TestUser;
  let invitee: TestUser;
  let other: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    organizer = await kith.createUser("evorg");
    guestUser = await kith.createUser("evguest");
    invitee = await kith.createUser("evinvitee");
    other = await kith.createUser("evother");
  });
  afterAll(() => kith.close());

  const inHours = (hours: number) => new Date(kith.clock.now().getTime() + hours * HOUR).toISOString();

  async function createEvent(body: Record<string, unknown> = {}, token = organizer.token): Promise<EventJson> {
    const made = await call(kith, "POST", "/api/v1/events", token, {
      title: `Event ${++serial}`,
      startTime: inHours(24),
      endTime: inHours(26),
      timeZone: "Europe/Paris",
      ...body,
    });
    expect(made.status).toBe(200);
    return made.body as unknown as EventJson;
  }

  describe("creating, reading, editing", () => {
    it("creates an event with its fields, the caller its organizer, description sanitised", async () => {
      const event = await createEvent({
        description: '<p>Come <script>alert(1)</script><a href="https://example.com">here</a></p>',
        location: { name: "Town hall", address: "1 Main St", latitude: 48.85, longitude: 2.35 },
      });
      expect(event).toMatchObject({
        privacy: "public",
        status: "scheduled",
        cancelled: false,
        deleted: false,
        organizer: { id: organizer.account.id },
        attendeeStatus: null,
        statistics: { going: 0, interested: 0 },
        location: { name: "Town hall", latitude: 48.85 },
        timeZone: "Europe/Paris",
      });
      expect(event.description).not.toContain("script");
      expect(event.description).toContain("https://example.com");
    });

    it("refuses bad input with 4xx: no title, end before start, unknown zone", async () => {
      expect((await call(kith, "POST", "/api/v1/events", organizer.token, { startTime: inHours(1) })).status).toBe(400);
      const backwards = await call(kith, "POST", "/api/v1/events", organizer.token, {
        title: "x",
        startTime: inHours(2),
        endTime: inHours(1),
      });
      expect(backwards).toMatchObject({ status: 422, body: { code: "event.invalid_times" } });
      const zone = await call(kith, "POST", "/api/v1/events", organizer.token, {
        title: "x",
        startTime: inHours(2),
        timeZone: "Mars/Olympus",
      });
      expect(zone).toMatchObject({ status: 422, body: { code: "event.invalid_time_zone" } });
    });

    it("shows a public event to guests, hides an invite-only one from them and from strangers", async () => {
      const open = await createEvent();
      const closed = await createEvent({ privacy: "invite_only" });
      expect((await call(kith, "GET", `/api/v1/events/${open.id}`)).status).toBe(200);
      expect(await call(kith, "GET", `/api/v1/events/${closed.id}`)).toMatchObject({ status: 404, body: { code: "event.not_found" } });
      expect((await call(kith, "GET", `/api/v1/events/${closed.id}`, other.token)).status).toBe(404);
      expect((await call(kith, "GET", `/api/v1/events/${closed.id}`, organizer.token)).status).toBe(200);
    });

    it("lists public events to guests and filters by organizer and owner, paged with Link", async () => {
      const mine = await kith.createUser(`evlister${++serial}`);
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await createEvent({}, mine.token));
      await createEvent({ privacy: "invite_only" }, mine.token);
      const page = await kith.request("GET", `/api/v1/events?organizerId=${mine.account.id}&limit=2`);
      expect(page.status).toBe(200);
      const ids = ((await page.json()) as EventJson[]).map((event) => event.id);
      expect(ids).toEqual([made[2]?.id, made[1]?.id]);
      const link = page.headers.get("link") ?? "";
      expect(link).toContain('rel="next"');
      const next = await call(kith, "GET", `/api/v1/events?organizerId=${mine.account.id}&limit=2&max_id=${ids[1]}`);
      expect((next.body as unknown as EventJson[]).map((event) => event.id)).toEqual([made[0]?.id]);
      const owned = await call(kith, "GET", `/api/v1/events?ownerId=${mine.account.id}`, mine.token);
      expect((owned.body as unknown as EventJson[]).length).toBe(4);
    });

    it("answers an ActivityPub Event, shaped as Mobilizon's, to a client asking for activity+json", async () => {
      const event = await createEvent({ location: { name: "Park", latitude: 48.85, longitude: 2.35 } });
      await call(kith, "POST", `/api/v1/events/${event.id}/join`, guestUser.token);
      const response = await kith.request("GET", `/api/v1/events/${event.id}`, { headers: { accept: "application/activity+json" } });
      expect(response.headers.get("content-type")).toMatch(/^application\/activity\+json/);
      expect(await response.json()).toMatchObject({
        type: "Event",
        name: event.title,
        startTime: event.startTime,
        location: { type: "Place", name: "Park" },
        joinMode: "free",
        "ical:status": "CONFIRMED",
        participantCount: 1,
        attributedTo: `${kith.config.origin}/users/${organizer.account.username}`,
      });
    });

    it("lets only the organizer edit (event.not_organizer, 403)", async () => {
      const event = await createEvent();
      const refused = await call(kith, "PUT", `/api/v1/events/${event.id}`, other.token, { title: "Mine now" });
      expect(refused).toMatchObject({ status: 403, body: { code: "event.not_organizer" } });
      const edited = await call(kith, "PUT", `/api/v1/events/${event.id}`, organizer.token, { title: "Renamed" });
      expect(edited).toMatchObject({ status: 200, body: { title: "Renamed" } });
    });

    it("changes privacy only while nobody takes part (event.privacy_locked, 409)", async () => {
      const event = await createEvent();
      const closed = await call(kith, "PUT", `/api/v1/events/${event.id}`, organizer.token, { privacy: "invite_only" });
      expect(closed).toMatchObject({ status: 200, body: { privacy: "invite_only" } });
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      expect(await call(kith, "PUT", `/api/v1/events/${event.id}`, organizer.token, { privacy: "public" })).toMatchObject({
        status: 409,
        body: { code: "event.privacy_locked" },
      });
    });
  });

  describe("public events", () => {
    it("none → join → attending, none → interested, and joinOrInterested DELETE → none, each answering statistics", async () => {
      const event = await createEvent();
      const joined = await call(kith, "POST", `/api/v1/events/${event.id}/join`, guestUser.token);
      expect(joined).toMatchObject({ status: 200, body: { going: 1, interested: 0 } });
      const interested = await call(kith, "POST", `/api/v1/events/${event.id}/interested`, other.token);
      expect(interested).toMatchObject({ status: 200, body: { going: 1, interested: 1 } });
      const seen = await call(kith, "GET", `/api/v1/events/${event.id}`, guestUser.token);
      expect(seen.body).toMatchObject({ attendeeStatus: "attending" });
      const left = await call(kith, "DELETE", `/api/v1/events/${event.id}/joinOrInterested`, guestUser.token);
      expect(left).toMatchObject({ status: 200, body: { going: 0, interested: 1 } });
      const again = await call(kith, "DELETE", `/api/v1/events/${event.id}/joinOrInterested`, guestUser.token);
      expect(again).toMatchObject({ status: 409, body: { code: "event.not_participating" } });
    });

    it("refuses invitations and their answers on a public event (event.not_invite_only, 409)", async () => {
      const event = await createEvent();
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/accept`, guestUser.token)).toMatchObject({
        status: 409,
        body: { code: "event.not_invite_only" },
      });
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${guestUser.account.id}`, organizer.token)).toMatchObject({
        status: 409,
        body: { code: "event.not_invite_only" },
      });
    });

    it("needs a signed-in user to respond", async () => {
      const event = await createEvent();
      expect((await call(kith, "POST", `/api/v1/events/${event.id}/join`)).status).toBe(401);
    });
  });

  describe("invite-only events", () => {
    it("invites, then accept, maybe and reject by the invitee; statistics by status", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      const invited = await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      expect(invited).toMatchObject({ status: 200, body: { status: "pending", account: { id: invitee.account.id } } });
      expect((await call(kith, "GET", `/api/v1/events/${event.id}`, invitee.token)).body).toMatchObject({
        attendeeStatus: "pending",
        statistics: { invited: { pending: 1 } },
      });
      for (const [action, status] of [
        ["accept", "accepted"],
        ["maybe", "tentative"],
        ["reject", "rejected"],
      ] as const) {
        const answered = await call(kith, "POST", `/api/v1/events/${event.id}/${action}`, invitee.token);
        expect(answered).toMatchObject({ status: 200, body: { attendeeStatus: status } });
        expect((answered.body as unknown as EventJson).statistics.invited[status]).toBe(1);
      }
    });

    it("refuses an answer from someone not invited (event.not_invited, 403)", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      // The invitee may see the event; a stranger is not even told it exists, the organizer's invitee's friend neither.
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/accept`, other.token)).toMatchObject({ status: 404 });
      const self = await call(kith, "POST", `/api/v1/events/${event.id}/accept`, organizer.token);
      expect(self).toMatchObject({ status: 403, body: { code: "event.not_invited" } });
    });

    it("refuses join, interested and leave on an invite-only event (event.invite_only, 409)", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      for (const [method, path] of [
        ["POST", "join"],
        ["POST", "interested"],
        ["DELETE", "joinOrInterested"],
      ] as const) {
        expect(await call(kith, method, `/api/v1/events/${event.id}/${path}`, invitee.token)).toMatchObject({
          status: 409,
          body: { code: "event.invite_only" },
        });
      }
    });

    it("lets only the organizer invite and remove; removal revokes the invitation", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${other.account.id}`, invitee.token)).toMatchObject({
        status: 403,
        body: { code: "event.not_organizer" },
      });
      expect(await call(kith, "DELETE", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, invitee.token)).toMatchObject({
        status: 403,
      });
      const removed = await call(kith, "DELETE", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      expect(removed.status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/events/${event.id}`, invitee.token)).status).toBe(404);
      const twice = await call(kith, "DELETE", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      expect(twice).toMatchObject({ status: 404, body: { code: "event.attendee_not_found" } });
      const nobody = await call(kith, "POST", `/api/v1/events/${event.id}/attendees/us_nobody`, organizer.token);
      expect(nobody).toMatchObject({ status: 404, body: { code: "event.invitee_not_found" } });
    });

    it("lists attendees with statuses, narrowed by status", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${invitee.account.id}`, organizer.token);
      await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${guestUser.account.id}`, organizer.token);
      await call(kith, "POST", `/api/v1/events/${event.id}/accept`, invitee.token);
      const all = await call(kith, "GET", `/api/v1/events/${event.id}/attendees`, organizer.token);
      const statuses = (all.body as { account: { id: string }; status: string }[]).map((a) => [a.account.id, a.status]);
      expect(statuses).toEqual(
        expect.arrayContaining([
          [invitee.account.id, "accepted"],
          [guestUser.account.id, "pending"],
        ]),
      );
      const pending = await call(kith, "GET", `/api/v1/events/${event.id}/attendees?status=pending`, invitee.token);
      expect((pending.body as unknown[]).length).toBe(1);
      expect((await call(kith, "GET", `/api/v1/events/${event.id}/attendees`)).status).toBe(404);
    });
  });

  describe("cancel and delete", () => {
    it("cancels (organizer only), tells attendees and invitees, keeps the event visible, refuses new responses", async () => {
      const event = await createEvent();
      const listener = await kith.createUser(`evlisten${++serial}`);
      await call(kith, "POST", `/api/v1/events/${event.id}/join`, listener.token);
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/cancel`, listener.token)).toMatchObject({
        status: 403,
        body: { code: "event.not_organizer" },
      });
      const cancelled = await call(kith, "POST", `/api/v1/events/${event.id}/cancel`, organizer.token);
      expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled", cancelled: true, deleted: false } });
      expect((await call(kith, "GET", `/api/v1/events/${event.id}`)).body).toMatchObject({ cancelled: true });
      const told = await call(kith, "GET", "/api/v1/notifications?types[]=event.cancelled", listener.token);
      expect(told.body).toMatchObject([{ type: "event.cancelled", account: { id: organizer.account.id }, event: { id: event.id } }]);
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/join`, guestUser.token)).toMatchObject({
        status: 409,
        body: { code: "event.cancelled" },
      });
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/cancel`, organizer.token)).toMatchObject({
        status: 409,
        body: { code: "event.already_cancelled" },
      });
    });

    it("tells invitees of an invite-only event too, but not those who declined", async () => {
      const event = await createEvent({ privacy: "invite_only" });
      const yes = await kith.createUser(`evyes${++serial}`);
      const no = await kith.createUser(`evno${++serial}`);
      for (const user of [yes, no]) await call(kith, "POST", `/api/v1/events/${event.id}/attendees/${user.account.id}`, organizer.token);
      await call(kith, "POST", `/api/v1/events/${event.id}/reject`, no.token);
      await call(kith, "POST", `/api/v1/events/${event.id}/cancel`, organizer.token);
      const toYes = await call(kith, "GET", "/api/v1/notifications?types[]=event.cancelled", yes.token);
      const toNo = await call(kith, "GET", "/api/v1/notifications?types[]=event.cancelled", no.token);
      expect((toYes.body as unknown[]).length).toBe(1);
      expect((toNo.body as unknown[]).length).toBe(0);
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/accept`, yes.token)).toMatchObject({
        status: 409,
        body: { code: "event.cancelled" },
      });
    });

    it("soft-deletes (organizer only): still readable as deleted, out of lists, no more responses or edits", async () => {
      const event = await createEvent();
      expect(await call(kith, "DELETE", `/api/v1/events/${event.id}`, other.token)).toMatchObject({ status: 403 });
      const deleted = await call(kith, "DELETE", `/api/v1/events/${event.id}`, organizer.token);
      expect(deleted).toMatchObject({ status: 200, body: { status: "deleted", deleted: true, cancelled: true } });
      expect((await call(kith, "GET", `/api/v1/events/${event.id}`)).body).toMatchObject({ deleted: true });
      const listed = await call(kith, "GET", `/api/v1/events?organizerId=${organizer.account.id}&limit=40`);
      expect((listed.body as unknown as EventJson[]).map((e) => e.id)).not.toContain(event.id);
      expect(await call(kith, "POST", `/api/v1/events/${event.id}/interested`, guestUser.token)).toMatchObject({
        status: 409,
        body: { code: "event.deleted" },
      });
      expect(await call(kith, "PUT", `/api/v1/events/${event.id}`, organizer.token, { title: "x" })).toMatchObject({
        status: 409,
        body: { code: "event.deleted" },
      });
      expect(await call(kith, "DELETE", `/api/v1/events/${event.id}`, organizer.token)).toMatchObject({ status: 409 });
    });
  });

  describe("the caller's events and mutual attendees", () => {
    it("filters /events/my by past, organized and pending, paged with Link", async () => {
      const me = await kith.createUser(`evme${++serial}`);
      const host = await kith.createUser(`evhost${++serial}`);
      const organized = await createEvent({}, me.token);
      const past = await createEvent({ startTime: inHours(-5), endTime: inHours(-4) }, me.token);
      const invitedTo = await createEvent({ privacy: "invite_only" }, host.token);
      await call(kith, "POST", `/api/v1/events/${invitedTo.id}/attendees/${me.account.id}`, host.token);
      const attended = await createEvent({}, host.token);
      await call(kith, "POST", `/api/v1/events/${attended.id}/join`, me.token);
      const ids = async (query: string) =>
        ((await call(kith, "GET", `/api/v1/events/my${query}`, me.token)).body as unknown as EventJson[]).map((e) => e.id);
      expect(await ids("")).toEqual([attended.id, invitedTo.id, organized.id]);
      expect(await ids("?past=true")).toEqual([past.id]);
      expect(await ids("?organized=true")).toEqual([organized.id]);
      expect(await ids("?pending=true")).toEqual([invitedTo.id]);
      const page = await kith.request("GET", "/api/v1/events/my?limit=2", { token: me.token });
      expect(page.headers.get("link")).toContain('rel="next"');
      expect((await call(kith, "GET", "/api/v1/events/my")).status).toBe(401);
    });

    it("lists the attendees the caller follows", async () => {
      const event = await createEvent();
      const friend = await kith.createUser(`evfriend${++serial}`);
      const stranger = await kith.createUser(`evstranger${++serial}`);
      const me = await kith.createUser(`evfollower${++serial}`);
      expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/follow`, me.token)).status).toBe(200);
      await call(kith, "POST", `/api/v1/events/${event.id}/join`, friend.token);
      await call(kith, "POST", `/api/v1/events/${event.id}/join`, stranger.token);
      const mutual = await call(kith, "GET", `/api/v1/events/${event.id}/mutual`, me.token);
      expect((mutual.body as { account: { id: string } }[]).map((a) => a.account.id)).toEqual([friend.account.id]);
    });
  });

  describe("search", () => {
    it("searches local events by query, date range and point with radius", async () => {
      const word = `zebra${++serial}`;
      const far = await createEvent({ title: `${word} far`, startTime: inHours(24 * 30), endTime: inHours(24 * 30 + 1) });
      const near = await createEvent({
        title: `${word} near`,
        location: { name: "Paris", latitude: 48.8566, longitude: 2.3522 },
      });
      const titles = async (query: string) =>
        ((await call(kith, "GET", `/api/v1/events/search?${query}`)).body as unknown as EventJson[]).map((e) => e.id);
      expect(await titles(`q=${word}`)).toEqual([near.id, far.id]);
      expect(await titles(`q=${word}&from=${encodeURIComponent(inHours(24 * 20))}`)).toEqual([far.id]);
      // Versailles is 17 km from Paris.
      expect(await titles(`mode=local&latitude=48.8049&longitude=2.1204&radiusKm=25`)).toContain(near.id);
      expect(await titles(`mode=local&latitude=48.8049&longitude=2.1204&radiusKm=5`)).not.toContain(near.id);
    });

    it("needs a filter for local and fasp, and says no FASP provider is configured", async () => {
      expect(await call(kith, "GET", "/api/v1/events/search?mode=local")).toMatchObject({
        status: 422,
        body: { code: "event.search_filter_required" },
      });
      expect(await call(kith, "GET", "/api/v1/events/search?mode=fasp")).toMatchObject({
        status: 422,
        body: { code: "event.search_filter_required" },
      });
      expect(await call(kith, "GET", "/api/v1/events/search?mode=fasp&q=x")).toMatchObject({
        status: 503,
        body: { code: "event.fasp_not_configured" },
      });
    });

    it("finds events of followed accounts in following mode, for signed-in callers only", async () => {
      const host = await kith.createUser(`evfollowed${++serial}`);
      const me = await kith.createUser(`evreader${++serial}`);
      await call(kith, "POST", `/api/v1/accounts/${host.account.id}/follow`, me.token);
      const theirs = await createEvent({}, host.token);
      await createEvent({}, other.token);
      const found = await call(kith, "GET", "/api/v1/events/search?mode=following", me.token);
      expect((found.body as unknown as EventJson[]).map((e) => e.id)).toEqual([theirs.id]);
      expect((await call(kith, "GET", "/api/v1/events/search?mode=following")).status).toBe(401);
    });
  });

  describe("group calendars", () => {
    it("is the calendar application of the group catalog, installed by default", async () => {
      const catalog = await call(kith, "GET", "/api/v1/groups/apps");
      expect(catalog.body).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: "calendar", module: "events", available: true })]),
      );
    });

    it("lets a group's managers put events in its calendar, and refuses other members", async () => {
      const group = await createGroup(kith, organizer.token);
      const made = await createEvent({ groupId: group.id });
      expect(made.groupId).toBe(group.id);
      const refused = await call(kith, "POST", "/api/v1/events", other.token, { title: "x", startTime: inHours(3), groupId: group.id });
      expect(refused).toMatchObject({ status: 403, body: { code: "event.group_forbidden" } });
      const listed = await call(kith, "GET", `/api/v1/events?ownerId=${group.id}`);
      expect((listed.body as unknown as EventJson[]).map((e) => e.id)).toEqual([made.id]);
    });

    it("refuses a group that uninstalled the calendar application", async () => {
      const group = await createGroup(kith, organizer.token);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/apps/calendar`, organizer.token)).status).toBe(200);
      const refused = await call(kith, "POST", "/api/v1/events", organizer.token, { title: "x", startTime: inHours(3), groupId: group.id });
      expect(refused).toMatchObject({ status: 404, body: { code: "group.app_not_installed" } });
    });
  });

  describe("translations", () => {
    it("translates title and description through the AI provider, kept until the next edit", async () => {
      const event = await createEvent({ title: "Summer party", description: "<p>Bring food</p>" });
      const first = await call(kith, "POST", `/api/v1/events/${event.id}/translate`, undefined, { lang: "de" });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ language: "de" });
      const shown = await call(kith, "GET", `/api/v1/events/${event.id}`);
      expect((shown.body as unknown as EventJson).translations).toMatchObject([{ language: "de" }]);
      await call(kith, "PUT", `/api/v1/events/${event.id}`, organizer.token, { title: "Winter party" });
      const stale = await call(kith, "GET", `/api/v1/events/${event.id}`);
      expect((stale.body as unknown as EventJson).translations).toEqual([]);
      const second = await call(kith, "POST", `/api/v1/events/${event.id}/translate`, undefined, { lang: "de" });
      expect((second.body as { title: string }).title).not.toBe((first.body as { title: string }).title);
      expect((await call(kith, "POST", `/api/v1/events/${event.id}/translate`, undefined, { lang: "??" })).status).toBe(422);
    });
  });
});
