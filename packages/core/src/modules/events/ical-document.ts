import { getVtimezoneComponent } from "@touch4it/ical-timezones";
import ical, { ICalEventBusyStatus, ICalEventClass, ICalEventStatus } from "ical-generator";
import { DateTime } from "luxon";
import { textOfHtml } from "../../platform/federation/html-sanitizer.js";
import { toBool } from "../../ports/storage-schema.js";
import type { EventRow } from "./events-store.js";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** How much a calendar tells: everything, or only when its owner is busy. */
export type DetailLevel = "full" | "busy";

export interface IcalOptions {
  readonly name: string;
  /** The host, which makes each event's UID unique across servers (`ev_…@host`). */
  readonly host: string;
  readonly detail: DetailLevel;
  readonly urlOf: (eventId: string) => string;
}

/**
 * A time in the event's zone: ical-generator writes a zoned luxon time as
 * the zone's wall clock with its TZID (a plain Date would be written with
 * its UTC fields under the TZID, which is wrong).
 */
function zoned(iso: string, zone: string): DateTime {
  return DateTime.fromISO(iso, { zone: "utc" }).setZone(zone);
}

/** The end iCalendar needs: the given one, or an hour (a day for all-day events) after the start. */
function endOf(event: EventRow): DateTime {
  const start = zoned(event.starts_at, event.time_zone);
  if (event.ends_at !== null) return zoned(event.ends_at, event.time_zone);
  return start.plus({ milliseconds: toBool(event.all_day) ? DAY_MS : HOUR_MS });
}

function locationOf(event: EventRow): string | null {
  const parts = [event.location_name, event.location_address].filter((part): part is string => part !== null && part !== "");
  if (parts.length > 0) return parts.join(", ");
  return event.online_url;
}

/**
 * An iCalendar document (RFC 5545) of events, made with ical-generator:
 * times in each event's IANA zone, with the zone's VTIMEZONE (from
 * @touch4it/ical-timezones) so that clients without that zone's rules read
 * them right across a DST change; a cancelled event is `STATUS:CANCELLED`.
 * Everything in it comes from the rows (DTSTAMP is the last change), so the
 * same events give the same bytes, and the ETag follows the content.
 */
export function icalDocument(events: readonly EventRow[], options: IcalOptions): string {
  const calendar = ical({
    name: options.name,
    prodId: { company: "Kith", product: "Kith", language: "EN" },
    timezone: { name: null, generator: getVtimezoneComponent },
  });
  for (const event of events) {
    const busyOnly = options.detail === "busy";
    const location = busyOnly ? null : locationOf(event);
    calendar.createEvent({
      id: `${event.id}@${options.host}`,
      start: zoned(event.starts_at, event.time_zone),
      end: endOf(event),
      timezone: event.time_zone,
      allDay: toBool(event.all_day),
      summary: busyOnly ? "Busy" : event.title,
      ...(busyOnly ? {} : { description: textOfHtml(event.description) }),
      ...(location !== null && { location }),
      url: busyOnly ? null : options.urlOf(event.id),
      status: event.cancelled_at !== null ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      busystatus: ICalEventBusyStatus.BUSY,
      class: event.privacy === "public" && !busyOnly ? ICalEventClass.PUBLIC : ICalEventClass.PRIVATE,
      sequence: event.version - 1,
      created: new Date(event.created_at),
      lastModified: new Date(event.updated_at),
      stamp: new Date(event.updated_at),
    });
  }
  return calendar.toString();
}
