import { z } from "zod";
import { zDateTime } from "../../platform/http/schemas.js";
import { zBool } from "../../platform/http/schemas.js";

/** A number from JSON or a decimal string (query strings and forms). */
const zNumber = z.preprocess(
  (value) => (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value),
  z.number().finite(),
);

export const LocationInput = z.object({
  name: z.string().trim().max(200).nullish(),
  address: z.string().trim().max(500).nullish(),
  latitude: zNumber.pipe(z.number().min(-90).max(90)).nullish(),
  longitude: zNumber.pipe(z.number().min(-180).max(180)).nullish(),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullish(),
});

const fields = {
  title: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  startTime: zDateTime,
  endTime: zDateTime.nullable(),
  timeZone: z.string().min(1).max(64),
  allDay: zBool,
  location: LocationInput.nullable(),
  privacy: z.enum(["public", "invite_only"]),
};

/** `POST /api/v1/events`: title and start are required; the rest has defaults (UTC, public, not all day). */
export const CreateEventBody = z.object({
  title: fields.title,
  description: fields.description.default(""),
  startTime: fields.startTime,
  endTime: fields.endTime.optional().transform((value) => value ?? null),
  timeZone: fields.timeZone.default("UTC"),
  allDay: fields.allDay.default(false),
  location: fields.location.optional().transform((value) => value ?? null),
  privacy: fields.privacy.default("public"),
  groupId: z.string().min(1).max(64).optional(),
});

/** `PUT /api/v1/events/{eventId}`: any of the fields; what is absent stays. */
export const UpdateEventBody = z.object({
  title: fields.title.optional(),
  description: fields.description.optional(),
  startTime: fields.startTime.optional(),
  endTime: fields.endTime.optional(),
  timeZone: fields.timeZone.optional(),
  allDay: fields.allDay.optional(),
  location: fields.location.optional(),
  privacy: fields.privacy.optional(),
});

export const EventListQuery = z.object({
  organizerId: z.string().min(1).max(64).optional(),
  ownerId: z.string().min(1).max(64).optional(),
});

export const MyEventsQuery = z.object({
  past: zBool.optional(),
  organized: zBool.optional(),
  pending: zBool.optional(),
});

export const SearchQuery = z.object({
  mode: z.enum(["following", "local", "fasp"]).default("local"),
  q: z.string().trim().min(1).max(200).optional(),
  from: zDateTime.optional(),
  to: zDateTime.optional(),
  latitude: zNumber.pipe(z.number().min(-90).max(90)).optional(),
  longitude: zNumber.pipe(z.number().min(-180).max(180)).optional(),
  radiusKm: zNumber.pipe(z.number().positive().max(20_000)).optional(),
  groupId: z.string().min(1).max(64).optional(),
});

export const AttendeesQuery = z.object({
  status: z.enum(["attending", "interested", "pending", "accepted", "tentative", "rejected"]).optional(),
});

export const SettingsQuery = z.object({ groupId: z.string().min(1).max(64).optional() });

export const SettingsUpdateBody = z.object({
  groupId: z.string().min(1).max(64).optional(),
  publicCalendar: zBool.optional(),
  detailLevel: z.enum(["full", "busy"]).optional(),
  exportScope: z.enum(["organized", "attended"]).optional(),
});

export const TranslateBody = z.object({
  lang: z
    .string()
    .trim()
    .min(2)
    .max(16)
    .regex(/^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/),
});
