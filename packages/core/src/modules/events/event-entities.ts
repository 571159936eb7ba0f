import { z } from "zod";
import { AccountJson } from "../../mastodon/entities/account.js";

/** Where an event happens: a place (name, address, optional point), an online address, or both. */
export const EventLocationJson = z.object({
  name: z.string().nullable(),
  address: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  url: z.string().nullable(),
});

/** How many take part, by standing: public events count going and interested, invite-only ones their invitations. */
export const EventStatisticsJson = z.object({
  going: z.number().int(),
  interested: z.number().int(),
  invited: z.object({
    accepted: z.number().int(),
    tentative: z.number().int(),
    rejected: z.number().int(),
    pending: z.number().int(),
  }),
});

export const EventTranslationJson = z.object({
  language: z.string(),
  title: z.string(),
  description: z.string(),
  detectedSourceLanguage: z.string(),
  provider: z.string(),
});

export const RSVP_STATUSES = ["attending", "interested", "pending", "accepted", "tentative", "rejected"] as const;

/**
 * A calendar event (the spec's family: camelCase). Times are ISO 8601 in
 * UTC; `timeZone` is the IANA zone it is planned in, which the iCalendar
 * export keeps. `attendeeStatus` is the caller's standing (null for none or
 * a guest); `translations` are those kept for the current version.
 */
export const EventJson = z.object({
  id: z.string().describe("ev_…"),
  title: z.string(),
  description: z.string().describe("Sanitised HTML"),
  startTime: z.string(),
  endTime: z.string().nullable(),
  timeZone: z.string(),
  allDay: z.boolean(),
  location: EventLocationJson.nullable(),
  privacy: z.enum(["public", "invite_only"]),
  organizer: AccountJson,
  groupId: z.string().nullable(),
  status: z.enum(["scheduled", "cancelled", "deleted"]),
  cancelled: z.boolean(),
  cancelledAt: z.string().nullable(),
  deleted: z.boolean(),
  deletedAt: z.string().nullable(),
  attendeeStatus: z.enum(RSVP_STATUSES).nullable(),
  statistics: EventStatisticsJson,
  translations: z.array(EventTranslationJson),
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type EventEntity = z.infer<typeof EventJson>;
export type EventStatistics = z.infer<typeof EventStatisticsJson>;
export type EventTranslationEntity = z.infer<typeof EventTranslationJson>;

/** One account's standing on an event; `id` is the participation's, the cursor of the list. */
export const EventAttendeeJson = z.object({
  id: z.string(),
  account: AccountJson,
  status: z.enum(RSVP_STATUSES),
  updatedAt: z.string(),
});
export type EventAttendeeEntity = z.infer<typeof EventAttendeeJson>;

/** A calendar's export settings, of a user or of a group (`ownerId`). */
export const CalendarSettingsJson = z.object({
  ownerId: z.string(),
  publicCalendar: z.boolean(),
  privateId: z.string(),
  detailLevel: z.enum(["full", "busy"]),
  exportScope: z.enum(["organized", "attended"]),
  privateUrl: z.string(),
  updatedAt: z.string(),
});
export type CalendarSettingsEntity = z.infer<typeof CalendarSettingsJson>;
