import { z } from "zod";
import { AccountJson } from "./account.js";
import { StatusJson } from "./status.js";

export const NotificationTypeJson = z.enum([
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "quote",
  "quoted_update",
  "admin.sign_up",
  "admin.report",
  "group.join_request",
  "group.invitation",
  "group.join_approved",
  "group.join_rejected",
  "event.cancelled",
]);

/**
 * Mastodon's Notification entity (v1). `read_at` is Kith's addition: when
 * the notification was marked read, null while unread.
 */
export const NotificationJson = z.object({
  id: z.string(),
  type: z.string(),
  group_key: z.string(),
  created_at: z.string(),
  account: AccountJson,
  status: StatusJson.nullable(),
  report: z.null(),
  read_at: z.string().nullable(),
  /** Kith's: the group a `group.*` notification is about, as the recipient sees it (null once it may not see it); absent on other types. */
  group: z.record(z.string(), z.unknown()).nullable().optional(),
  /** Kith's: the calendar event an `event.*` notification is about, as the recipient sees it (null once it may not see it); absent on other types. */
  event: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** Mastodon's NotificationGroup (v2). */
export const NotificationGroupJson = z.object({
  group_key: z.string(),
  notifications_count: z.number().int(),
  type: z.string(),
  most_recent_notification_id: z.string(),
  page_min_id: z.string(),
  page_max_id: z.string(),
  latest_page_notification_at: z.string(),
  sample_account_ids: z.array(z.string()),
  status_id: z.string().nullable(),
  report: z.null(),
  /** Kith's, as on a v1 notification: the group a `group.*` notification group is about, as the recipient sees it; absent on other types. */
  group: z.record(z.string(), z.unknown()).nullable().optional(),
  /** Kith's: the calendar event an `event.*` notification is about, as the recipient sees it (null once it may not see it); absent on other types. */
  event: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** Mastodon's GroupedNotificationsResults (v2). */
export const GroupedNotificationsJson = z.object({
  accounts: z.array(AccountJson),
  statuses: z.array(StatusJson),
  notification_groups: z.array(NotificationGroupJson),
});

export const UnreadCountJson = z.object({ count: z.number().int() });

export type NotificationEntity = z.infer<typeof NotificationJson>;
export type NotificationGroupEntity = z.infer<typeof NotificationGroupJson>;
export type GroupedNotificationsEntity = z.infer<typeof GroupedNotificationsJson>;
