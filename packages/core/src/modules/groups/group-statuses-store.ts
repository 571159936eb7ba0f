import { toBool } from "../../ports/storage-schema.js";
import { countChannelAccount } from "./channel-account-store.js";
import { countGroupAccount } from "./group-account-store.js";
import type { GroupsDb, GroupStatusesTable, IdBounds } from "./group-tables-store.js";

export type GroupStatusRow = GroupStatusesTable;

/** Records a status as posted in its group, and counts it there. */
export async function insertGroupStatus(db: GroupsDb, row: GroupStatusRow): Promise<void> {
  await db.insertInto("group_statuses").values(row).execute();
  await countGroupStatuses(db, row.group_id, 1);
}

/** The group a status was posted in, if any. */
export async function groupOfStatus(db: GroupsDb, statusId: string): Promise<string | null> {
  const row = await db.selectFrom("group_statuses").select("group_id").where("status_id", "=", statusId).executeTakeFirst();
  return row?.group_id ?? null;
}

/** The author of a status posted in the group, or null when the group holds no such status. */
export async function authorInGroup(db: GroupsDb, groupId: string, statusId: string): Promise<string | null> {
  const row = await db
    .selectFrom("group_statuses")
    .innerJoin("statuses", "statuses.id", "group_statuses.status_id")
    .select("statuses.account_id")
    .where("group_statuses.group_id", "=", groupId)
    .where("group_statuses.status_id", "=", statusId)
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/** Where a status was posted: its group and channel (null before channels), or null for a status in no group. */
export async function placeOfStatus(db: GroupsDb, statusId: string): Promise<{ group_id: string; channel_id: string | null } | null> {
  const row = await db.selectFrom("group_statuses").select(["group_id", "channel_id"]).where("status_id", "=", statusId).executeTakeFirst();
  return row ?? null;
}

/** Forgets a deleted status's place in its group, and its counts there. */
export async function deleteGroupStatus(db: GroupsDb, statusId: string): Promise<void> {
  const row = await db
    .deleteFrom("group_statuses")
    .where("status_id", "=", statusId)
    .returning(["group_id", "channel_id"])
    .executeTakeFirst();
  if (!row) return;
  await countGroupStatuses(db, row.group_id, -1);
  if (row.channel_id !== null) await countChannelStatuses(db, row.channel_id, -1);
}

/** Moves a channel's status count by `delta`; false when the channel is gone. */
export async function countChannelStatuses(db: GroupsDb, channelId: string, delta: number): Promise<boolean> {
  const result = await db
    .updateTable("group_channels")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", delta) }))
    .where("id", "=", channelId)
    .executeTakeFirst();
  const counted = Number(result.numUpdatedRows) > 0;
  if (counted) await countChannelAccount(db, channelId, delta);
  return counted;
}

/**
 * Counts one more status on the group's primary channel and names it, in one
 * statement: the channel of a status posted without one. Undefined when the
 * group has no primary channel yet (made before channels).
 */
export async function countOnPrimaryChannel(db: GroupsDb, groupId: string): Promise<string | undefined> {
  const row = await db
    .updateTable("group_channels")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", 1) }))
    .where("primary_of", "=", groupId)
    .returning("id")
    .executeTakeFirst();
  if (row) await countChannelAccount(db, row.id, 1);
  return row?.id;
}

/** Which of `accountIds` are members of the group. */
export async function membersAmong(db: GroupsDb, groupId: string, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("group_members")
    .select("account_id")
    .where("group_id", "=", groupId)
    .where("account_id", "in", [...new Set(accountIds)])
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

async function countGroupStatuses(db: GroupsDb, groupId: string, delta: number): Promise<void> {
  await db
    .updateTable("groups")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", delta) }))
    .where("id", "=", groupId)
    .execute();
  await countGroupAccount(db, groupId, "statuses_count", delta);
}

/**
 * Takes an account's mentions in a secret group's statuses, which are what
 * let it see them (they are posted `direct`): a member who leaves or is
 * removed loses sight of them at once.
 */
export async function forgetSecretMentions(db: GroupsDb, groupId: string, accountId: string): Promise<void> {
  const group = await db.selectFrom("groups").select("secret").where("id", "=", groupId).executeTakeFirst();
  if (!group || !toBool(group.secret)) return;
  await db
    .deleteFrom("mentions")
    .where("account_id", "=", accountId)
    .where("status_id", "in", (eb) => eb.selectFrom("group_statuses").select("status_id").where("group_id", "=", groupId))
    .execute();
}

/** Whose statuses a timeline lists: a group's, or one of its channels'. */
export type StatusesOf = { readonly group: string } | { readonly channel: string };

/** One page of the ids of a group's or a channel's statuses (ids are time ordered: newest first unless `ascending`). */
export async function statusIdsPage(db: GroupsDb, of: StatusesOf, bounds: IdBounds): Promise<string[]> {
  let query = db.selectFrom("group_statuses").select("status_id");
  query = "group" in of ? query.where("group_id", "=", of.group) : query.where("channel_id", "=", of.channel);
  if (bounds.above !== undefined) query = query.where("status_id", ">", bounds.above);
  if (bounds.below !== undefined) query = query.where("status_id", "<", bounds.below);
  const rows = await query
    .orderBy("status_id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
  return rows.map((row) => row.status_id);
}
