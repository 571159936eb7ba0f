import type { NotificationRecord } from "./notifications-store.js";

/** Types Mastodon folds into groups in its v2 API. */
export const GROUPABLE_TYPES: readonly string[] = ["favourite", "reblog", "follow"];

/** Notifications of one kind about one status fold together within this span, as in Mastodon. */
const GROUP_SPAN_MS = 12 * 60 * 60 * 1000;

/** Accounts shown with a group, at most, as Mastodon samples them. */
const SAMPLE_ACCOUNTS = 8;

/**
 * The stored group key of a new notification: `<type>-<status>-<span>` for
 * favourites and boosts, `follow-<span>` for follows, `ungrouped-<id>` for
 * the rest (Mastodon's own keys for notifications it never groups).
 */
export function groupKeyFor(id: string, type: string, statusId: string | null, at: Date): string {
  if (!GROUPABLE_TYPES.includes(type)) return `ungrouped-${id}`;
  const span = Math.floor(at.getTime() / GROUP_SPAN_MS);
  return statusId ? `${type}-${statusId}-${span}` : `${type}-${span}`;
}

/** A NotificationGroup of Mastodon's v2 API, before rendering. */
export interface NotificationGroup {
  readonly groupKey: string;
  /** Whether notifications were folded by key (false: one per group). */
  readonly grouped: boolean;
  readonly type: string;
  readonly notificationsCount: number;
  readonly mostRecentNotificationId: string;
  readonly pageMinId: string;
  readonly pageMaxId: string;
  readonly latestPageNotificationAt: string;
  readonly sampleAccountIds: readonly string[];
  readonly statusId: string | null;
}

interface OpenGroup {
  key: string;
  grouped: boolean;
  items: NotificationRecord[];
}

/**
 * Folds notifications (newest first) into at most `limit` groups, in order of
 * their newest member. Returns the groups and the notifications that went
 * into them, so the page's cursor stops where the groups stop.
 */
export function groupNotifications(
  rows: readonly NotificationRecord[],
  limit: number,
  groupedTypes: readonly string[],
): { groups: NotificationGroup[]; used: NotificationRecord[] } {
  const open = new Map<string, OpenGroup>();
  const used: NotificationRecord[] = [];
  for (const row of rows) {
    const grouped = groupedTypes.includes(row.type) && !row.groupKey.startsWith("ungrouped-");
    const key = grouped ? row.groupKey : `ungrouped-${row.id}`;
    const existing = open.get(key);
    if (existing) existing.items.push(row);
    else if (open.size < limit) open.set(key, { key, grouped, items: [row] });
    else break;
    used.push(row);
  }
  const groups = [...open.values()].map((group): NotificationGroup => {
    const newest = group.items[0] as NotificationRecord;
    const oldest = group.items[group.items.length - 1] as NotificationRecord;
    return {
      groupKey: group.key,
      grouped: group.grouped,
      type: newest.type,
      notificationsCount: group.items.length,
      mostRecentNotificationId: newest.id,
      pageMinId: oldest.id,
      pageMaxId: newest.id,
      latestPageNotificationAt: newest.createdAt,
      sampleAccountIds: [...new Set(group.items.map((n) => n.fromAccountId))].slice(0, SAMPLE_ACCOUNTS),
      statusId: newest.statusId,
    };
  });
  return { groups, used };
}
