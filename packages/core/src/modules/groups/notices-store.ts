import type { GroupsDb } from "./group-tables-store.js";

/** Records which group each notification is about. */
export async function insertGroupNotifications(db: GroupsDb, notificationIds: readonly string[], groupId: string): Promise<void> {
  if (notificationIds.length === 0) return;
  await db
    .insertInto("group_notifications")
    .values(notificationIds.map((notification_id) => ({ notification_id, group_id: groupId })))
    .execute();
}

/** The group of each of the notifications that has one. */
export async function groupsOfNotifications(db: GroupsDb, notificationIds: readonly string[]): Promise<Map<string, string>> {
  if (notificationIds.length === 0) return new Map();
  const rows = await db.selectFrom("group_notifications").selectAll().where("notification_id", "in", [...notificationIds]).execute();
  return new Map(rows.map((row) => [row.notification_id, row.group_id]));
}
