import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { NotificationTypeJson } from "../../mastodon/entities/notification.js";
import {
  type NotificationFilter,
  type NotificationRecord,
  countUnread,
  deleteFollowRequestNotifications,
  deleteNotifications,
  findNotification,
  groupSizes,
  holdersOfResources,
  insertNotifications,
  notificationsOfGroup,
  pageNotifications,
  recipientsNotifiedAbout,
  verdictsOfRecipients,
  setReadAt,
} from "./notifications-store.js";
import { type BatchedWriteKind, type BatchedWrites, rowInserts } from "../../platform/storage/batched-writes.js";
import type { ServiceDeps } from "../service-deps.js";
import { streamChannels } from "../streaming/channels.js";
import { policyRules } from "./notification-policy.js";
import { GROUPABLE_TYPES, type NotificationGroup, groupKeyFor, groupNotifications } from "./notification-groups.js";

export type { NotificationFilter, NotificationGroup, NotificationRecord };

/**
 * Notification types: Mastodon's (`mention`, `status`, `reblog`, `follow`,
 * `follow_request`, `favourite`, `poll`, `update`, `admin.sign_up`,
 * `admin.report`). A new reply under a status someone subscribed to (Kith's
 * status subscriptions) is a `status` notification about the reply, so every
 * Mastodon client shows it as "new status from ..." without learning a type.
 *
 * Kith's own, of groups (the notification's `group` says which):
 * `group.join_request` (to the group's managers; `account` asks to join),
 * `group.invitation` (to the invitee; `account` invited them),
 * `group.join_approved` and `group.join_rejected` (to the requester;
 * `account` decided).
 *
 * Kith's own, of calendar events (the notification's `event` says which):
 * `event.cancelled` (to everyone invited to or taking part in the event,
 * but those who declined; `account` is the organizer who cancelled it).
 */
export const NOTIFICATION_TYPES = NotificationTypeJson.options;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NewNotification {
  readonly recipientId: string;
  readonly fromAccountId: string;
  readonly type: NotificationType;
  readonly statusId?: string | null;
}

/** A page of grouped notifications, with the notifications it was made of (for the `Link` header). */
export interface NotificationGroupPage {
  readonly groups: readonly NotificationGroup[];
  /** Ids of the notifications the page covered, newest first. */
  readonly notificationIds: readonly string[];
}

/** Rows a statement inserts at most: eight values each, within both engines' limits on a statement's parameters. */
const ROWS_PER_INSERT = 1_000;

/** The notifications written at the same moment, inserted together. */
const notificationRows: BatchedWriteKind<readonly NotificationRecord[]> = rowInserts(insertNotifications, ROWS_PER_INSERT);

export interface NotifyOptions {
  /** Lets the sender be the recipient (the end of one's own poll). */
  readonly allowSelf?: boolean;
  /** Runs once the notifications are written and before their recipients' streams are told (to record what they are about). */
  readonly onWritten?: (records: readonly { readonly id: string; readonly recipientId: string }[]) => Promise<void>;
}

/** Longest a v2 unread count goes, as Mastodon caps it. */
export const UNREAD_COUNT_MAX = 1000;

/**
 * Notifications: written in reaction to domain events (see
 * notification-reactions.ts), read through Mastodon's v1 and grouped v2
 * APIs. Each has a read time (`read_at`), which the notifications marker
 * also moves, so "unread" means the same in the unread counts, the
 * read/unread filter and the marker.
 */
export class NotificationService {
  readonly #announced: ((recipientId: string, notificationId: string) => Promise<void>)[] = [];

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "pubsub">,
    private readonly batchedWrites: BatchedWrites,
  ) {}

  #now(): string {
    return this.deps.clock.now().toISOString();
  }

  /**
   * Writes one notification and tells the recipient's stream, unless the
   * recipient is not local, is the sender, or refuses the sender (blocks it
   * or its domain, or mutes it with notifications). Returns its id, or null.
   */
  async notify(input: NewNotification, options: NotifyOptions = {}): Promise<string | null> {
    const [id] = await this.notifyMany([input.recipientId], input.fromAccountId, input.type, input.statusId ?? null, options);
    return id ?? null;
  }

  /**
   * Writes the same notification for several recipients with a fixed number
   * of queries, whatever their number; the rules of `notify` apply to each.
   * Returns the ids written.
   */
  async notifyMany(
    recipientIds: readonly string[],
    fromAccountId: string,
    type: NotificationType,
    statusId: string | null,
    options: NotifyOptions = {},
  ): Promise<string[]> {
    const db = this.deps.storage.db;
    const now = this.#now();
    const asked = [...new Set(recipientIds)].filter((id) => options.allowSelf || id !== fromAccountId);
    const verdicts = await verdictsOfRecipients(db, {
      recipientIds: asked,
      fromId: fromAccountId,
      // A muted conversation stays quiet (Mastodon's "mute conversation"); a poll's end is still told.
      conversationOf: type === "poll" ? null : statusId,
      now,
      ...policyRules(type, this.deps.clock.now()),
    });
    let recipients = [...verdicts.keys()];
    if (statusId && (type === "status" || type === "mention")) {
      // One notice per status: a follower who is also mentioned, or also subscribed to the thread, hears once.
      const told = await recipientsNotifiedAbout(db, recipients, statusId, ["mention", "status"]);
      recipients = recipients.filter((id) => !told.has(id));
    }
    const at = this.deps.clock.now();
    const records: NotificationRecord[] = recipients.map((recipientId) => {
      const id = this.deps.ids.next("notification");
      return {
        id,
        recipientId,
        fromAccountId,
        type,
        statusId,
        groupKey: groupKeyFor(id, type, statusId, at),
        readAt: null,
        createdAt: now,
        // Held back by the recipient's policy: kept as a notification request, told to no stream or push.
        ...(verdicts.get(recipientId) === "filter" && { filtered: true }),
      };
    });
    // Committed with the other writes of the same moment (a notification is often written for each incoming Like).
    if (records.length > 0) await this.batchedWrites.write(notificationRows, records);
    if (records.length > 0) await options.onWritten?.(records);
    await Promise.all(records.filter((r) => r.filtered !== true).map((r) => this.announce(r.recipientId, r.id)));
    return records.map((r) => r.id);
  }

  /** Tells the recipient's streams of a notification written (by `notifyMany`, or with a favourite: `addFavourite`). */
  async announce(recipientId: string, notificationId: string): Promise<void> {
    await this.deps.pubsub.publish(streamChannels.user(recipientId), { event: "notification", notificationId });
    for (const listener of this.#announced) await listener(recipientId, notificationId);
  }

  /** Runs `listener` for every notification announced, after its recipient's streams are told (Web Push listens). */
  onAnnounced(listener: (recipientId: string, notificationId: string) => Promise<void>): void {
    this.#announced.push(listener);
  }

  /**
   * A follow request was answered: its notification goes away, as in
   * Mastodon. Returns whether there was one (an authorised request is not
   * announced again as a follow).
   */
  async settleFollowRequest(recipientId: string, fromAccountId: string): Promise<boolean> {
    return (await deleteFollowRequestNotifications(this.deps.storage.db, recipientId, fromAccountId)) > 0;
  }

  /** Tells the moderators (global roles over Signups or Users) that an account signed up. */
  async notifyAdminsOfSignUp(accountId: string): Promise<void> {
    await this.notifyMany(await holdersOfResources(this.deps.storage.db, ["Signups", "Users"]), accountId, "admin.sign_up", null);
  }

  /** Tells the moderators (global roles over Reports) that `reporterId` filed a report. */
  async notifyAdminsOfReport(reporterId: string): Promise<void> {
    await this.notifyMany(await holdersOfResources(this.deps.storage.db, ["Reports"]), reporterId, "admin.report", null);
  }

  list(recipientId: string, filter: NotificationFilter, page: PageRequest): Promise<NotificationRecord[]> {
    return pageNotifications(this.deps.storage.db, recipientId, filter, this.#now(), page);
  }

  async get(recipientId: string, id: string): Promise<NotificationRecord> {
    const notification = await findNotification(this.deps.storage.db, recipientId, id, this.#now());
    if (!notification) throw new KithError("notification.not_found");
    return notification;
  }

  async dismiss(recipientId: string, id: string): Promise<void> {
    await this.get(recipientId, id);
    await deleteNotifications(this.deps.storage.db, recipientId, { id });
  }

  async clear(recipientId: string): Promise<void> {
    await deleteNotifications(this.deps.storage.db, recipientId, {});
  }

  unreadCount(recipientId: string, filter: NotificationFilter, limit: number): Promise<number> {
    return countUnread(this.deps.storage.db, recipientId, filter, this.#now(), limit, "notification");
  }

  unreadGroupCount(recipientId: string, filter: NotificationFilter, limit: number): Promise<number> {
    return countUnread(this.deps.storage.db, recipientId, filter, this.#now(), limit, "group");
  }

  /** Marks one notification read (404 if it is not the caller's). */
  async markRead(recipientId: string, id: string): Promise<NotificationRecord> {
    await this.get(recipientId, id);
    await setReadAt(this.deps.storage.db, recipientId, this.#now(), { id });
    return this.get(recipientId, id);
  }

  async markUnread(recipientId: string, id: string): Promise<NotificationRecord> {
    await this.get(recipientId, id);
    await setReadAt(this.deps.storage.db, recipientId, null, { id });
    return this.get(recipientId, id);
  }

  /** Marks every notification read, or those up to `maxId`; returns how many changed. */
  markAllRead(recipientId: string, maxId?: string): Promise<number> {
    return setReadAt(this.deps.storage.db, recipientId, this.#now(), maxId ? { maxId } : {});
  }

  markAllUnread(recipientId: string, maxId?: string): Promise<number> {
    return setReadAt(this.deps.storage.db, recipientId, null, maxId ? { maxId } : {});
  }

  /**
   * One page of grouped notifications (v2): notifications are read newest
   * first and folded by group key until `limit` groups are full. Types not
   * in `groupedTypes` stay one per group.
   */
  async listGroups(
    recipientId: string,
    filter: NotificationFilter,
    page: PageRequest,
    groupedTypes: readonly string[] = GROUPABLE_TYPES,
  ): Promise<NotificationGroupPage> {
    const db = this.deps.storage.db;
    const now = this.#now();
    // Several notifications fold into one group, so read more than `limit` of them per page.
    const rows = await pageNotifications(db, recipientId, filter, now, { ...page, limit: Math.min(page.limit * 4, 200) });
    const { groups, used } = groupNotifications(rows, page.limit, groupedTypes);
    const sizes = await groupSizes(
      db,
      recipientId,
      groups.filter((g) => g.grouped).map((g) => g.groupKey),
      now,
    );
    return {
      groups: groups.map((g) => (g.grouped ? { ...g, notificationsCount: sizes.get(g.groupKey) ?? g.notificationsCount } : g)),
      notificationIds: used.map((n) => n.id),
    };
  }

  /** One group, whole (`GET /api/v2/notifications/:group_key`). */
  async getGroup(recipientId: string, groupKey: string): Promise<NotificationGroup> {
    const rows = await notificationsOfGroup(this.deps.storage.db, recipientId, groupKey, this.#now(), 200);
    const first = rows[0];
    if (!first) throw new KithError("notification.not_found");
    const grouped = !groupKey.startsWith("ungrouped-");
    const { groups } = groupNotifications(rows, 1, grouped ? [first.type] : []);
    const group = groups[0];
    if (!group) throw new KithError("notification.not_found");
    return { ...group, notificationsCount: rows.length };
  }

  /** The accounts behind one group's notifications, newest first, each once (`GET /api/v2/notifications/:group_key/accounts`). */
  async groupAccountIds(recipientId: string, groupKey: string): Promise<string[]> {
    const rows = await notificationsOfGroup(this.deps.storage.db, recipientId, groupKey, this.#now(), 200);
    if (rows.length === 0) throw new KithError("notification.not_found");
    return [...new Set(rows.map((row) => row.fromAccountId))];
  }

  async dismissGroup(recipientId: string, groupKey: string): Promise<void> {
    const removed = await deleteNotifications(this.deps.storage.db, recipientId, { groupKey });
    if (removed === 0) throw new KithError("notification.not_found");
  }
}
