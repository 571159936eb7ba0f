import { z } from "zod";
import { MediaAttachmentJson } from "./media.js";

/** The poll of a scheduled status's parameters, as it was given (Mastodon writes `expires_in` as a string). */
export const ScheduledPollParamsJson = z.object({
  options: z.array(z.string()),
  expires_in: z.string(),
  multiple: z.boolean(),
  hide_totals: z.boolean(),
});

/** What the status will be posted with, in Mastodon's names (`ScheduledStatus.params`). */
export const ScheduledStatusParamsJson = z.object({
  text: z.string(),
  poll: ScheduledPollParamsJson.nullable(),
  media_ids: z.array(z.string()).nullable(),
  sensitive: z.boolean().nullable(),
  spoiler_text: z.string().nullable(),
  visibility: z.enum(["public", "unlisted", "private", "direct"]).nullable(),
  in_reply_to_id: z.string().nullable(),
  language: z.string().nullable(),
  application_id: z.string().nullable(),
  scheduled_at: z.null(),
  idempotency: z.string().nullable(),
  with_rate_limit: z.boolean(),
  allowed_mentions: z.array(z.string()).nullable(),
});

/** Mastodon's ScheduledStatus entity: a status to be posted at `scheduled_at`, and the media it will carry. */
export const ScheduledStatusJson = z.object({
  id: z.string(),
  scheduled_at: z.string(),
  params: ScheduledStatusParamsJson,
  media_attachments: z.array(MediaAttachmentJson),
});

export type ScheduledStatusEntity = z.infer<typeof ScheduledStatusJson>;
