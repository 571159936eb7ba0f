import { countChannelAccount, insertChannelAccount, retireChannelAccounts, updateChannelAccount } from "./channel-account-store.js";
import type { GroupChannelSubscriptionsTable, GroupChannelsTable, GroupsDb } from "./group-tables-store.js";

export type ChannelRow = GroupChannelsTable;

export type ChannelChanges = Partial<
  Pick<
    ChannelRow,
    "username" | "username_key" | "global_username" | "global_username_key" | "display_name" | "note" | "parent_id" | "auto_subscribe"
  >
>;

/** A group has at most this many channels: they are read whole, as one list. */
export const CHANNELS_PER_GROUP = 100;

/** Adds a channel with its account; false when one of its unique keys (a username of either kind, the group's primary) is taken. */
export async function insertChannel(db: GroupsDb, row: ChannelRow): Promise<boolean> {
  const result = await db
    .insertInto("group_channels")
    .values(row)
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  const inserted = Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  if (inserted) await insertChannelAccount(db, row);
  return inserted;
}

export async function findChannel(db: GroupsDb, id: string): Promise<ChannelRow | undefined> {
  return db.selectFrom("group_channels").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The group of each of the channels that exist, by channel. */
export async function groupsOfChannels(db: GroupsDb, channelIds: readonly string[]): Promise<Map<string, string>> {
  if (channelIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("group_channels")
    .select(["id", "group_id"])
    .where("id", "in", [...new Set(channelIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.group_id]));
}

export async function findPrimaryChannel(db: GroupsDb, groupId: string): Promise<ChannelRow | undefined> {
  return db.selectFrom("group_channels").selectAll().where("primary_of", "=", groupId).executeTakeFirst();
}

/** A group's channels, the primary first, then in the order they were made. */
export async function channelsOf(db: GroupsDb, groupId: string): Promise<ChannelRow[]> {
  const rows = await db
    .selectFrom("group_channels")
    .selectAll()
    .where("group_id", "=", groupId)
    .orderBy("id")
    .limit(CHANNELS_PER_GROUP)
    .execute();
  return [...rows.filter((row) => row.primary_of !== null), ...rows.filter((row) => row.primary_of === null)];
}

export async function updateChannel(db: GroupsDb, id: string, changes: ChannelChanges, now: string): Promise<void> {
  await db
    .updateTable("group_channels")
    .set({ ...changes, updated_at: now })
    .where("id", "=", id)
    .execute();
  const { global_username, global_username_key, display_name, note } = changes;
  if ([global_username, display_name, note].some((value) => value !== undefined)) {
    await updateChannelAccount(db, id, { global_username, global_username_key, display_name, note }, now);
  }
}

/** Makes the channel its group's primary one, the former primary an ordinary channel. */
export async function movePrimary(db: GroupsDb, groupId: string, channelId: string, now: string): Promise<void> {
  await db.updateTable("group_channels").set({ primary_of: null, updated_at: now }).where("primary_of", "=", groupId).execute();
  await db.updateTable("group_channels").set({ primary_of: groupId, updated_at: now }).where("id", "=", channelId).execute();
}

export async function hasChildChannels(db: GroupsDb, channelId: string): Promise<boolean> {
  const row = await db.selectFrom("group_channels").select("id").where("parent_id", "=", channelId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a channel; its statuses stay in the group, moved to the primary
 * channel with their count. Its subscriptions go with it.
 */
export async function deleteChannelRow(db: GroupsDb, channel: ChannelRow, primaryId: string, now: string): Promise<void> {
  await db.updateTable("group_statuses").set({ channel_id: primaryId }).where("channel_id", "=", channel.id).execute();
  await db
    .updateTable("group_channels")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", Number(channel.statuses_count)) }))
    .where("id", "=", primaryId)
    .execute();
  await countChannelAccount(db, primaryId, Number(channel.statuses_count));
  await retireChannelAccounts(db, { channel: channel.id }, now);
  await db.deleteFrom("group_channels").where("id", "=", channel.id).execute();
}

/**
 * Gives a newly made primary channel the group's statuses posted before
 * channels, with their count.
 */
export async function adoptUnplacedStatuses(db: GroupsDb, groupId: string, channelId: string): Promise<void> {
  const result = await db
    .updateTable("group_statuses")
    .set({ channel_id: channelId })
    .where("group_id", "=", groupId)
    .where("channel_id", "is", null)
    .executeTakeFirst();
  const adopted = Number(result.numUpdatedRows);
  if (adopted > 0) {
    await db
      .updateTable("group_channels")
      .set((eb) => ({ statuses_count: eb("statuses_count", "+", adopted) }))
      .where("id", "=", channelId)
      .execute();
    await countChannelAccount(db, channelId, adopted);
  }
}

/**
 * Which of the lower-case names are taken on the server as a handle: a local
 * account's username (groups' and channels' accounts among them), a group's
 * name, or a channel's global username (that of `exceptChannel` aside, a
 * channel keeping its own).
 */
export async function handlesTaken(db: GroupsDb, keys: readonly string[], exceptChannel: string | null = null): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const wanted = [...new Set(keys)];
  let channels = db.selectFrom("group_channels").select("global_username_key as key").where("global_username_key", "in", wanted);
  let accounts = db.selectFrom("accounts").select("acct_key as key").where("acct_key", "in", wanted).where("domain", "is", null);
  // A channel's own account holds its global username too.
  if (exceptChannel !== null) {
    channels = channels.where("id", "!=", exceptChannel);
    accounts = accounts.where("id", "!=", exceptChannel);
  }
  const rows = await accounts
    .unionAll(db.selectFrom("groups").select("name_key as key").where("name_key", "in", wanted))
    .unionAll(channels)
    .execute();
  return new Set(rows.map((row) => row.key));
}

/** Subscribes an account to a channel; subscribing again changes nothing. */
export async function insertSubscription(db: GroupsDb, channel: ChannelRow, accountId: string, now: string): Promise<void> {
  await db
    .insertInto("group_channel_subscriptions")
    .values({ channel_id: channel.id, account_id: accountId, group_id: channel.group_id, created_at: now })
    .onConflict((conflict) => conflict.columns(["channel_id", "account_id"]).doNothing())
    .execute();
}

export async function deleteSubscription(db: GroupsDb, channelId: string, accountId: string): Promise<void> {
  await db.deleteFrom("group_channel_subscriptions").where("channel_id", "=", channelId).where("account_id", "=", accountId).execute();
}

/** Subscribes a new member to the group's auto-subscribe channels. */
export async function subscribeToAutoChannels(db: GroupsDb, groupId: string, accountId: string, now: string): Promise<void> {
  const channels = await db
    .selectFrom("group_channels")
    .select("id")
    .where("group_id", "=", groupId)
    .where("auto_subscribe", "=", true)
    .execute();
  await insertSubscriptions(
    db,
    channels.map((channel) => ({ channel_id: channel.id, account_id: accountId, group_id: groupId, created_at: now })),
  );
}

/** Subscribes every member of the group to a channel (a primary channel made after they joined). */
export async function subscribeAllMembers(db: GroupsDb, channel: ChannelRow, now: string): Promise<void> {
  const members = await db.selectFrom("group_members").select("account_id").where("group_id", "=", channel.group_id).execute();
  await insertSubscriptions(
    db,
    members.map((member) => ({ channel_id: channel.id, account_id: member.account_id, group_id: channel.group_id, created_at: now })),
  );
}

async function insertSubscriptions(db: GroupsDb, rows: readonly GroupChannelSubscriptionsTable[]): Promise<void> {
  // Bounded by the statement's parameters, four to a row.
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto("group_channel_subscriptions")
      .values(rows.slice(start, start + 500))
      .onConflict((conflict) => conflict.columns(["channel_id", "account_id"]).doNothing())
      .execute();
  }
}

/** Ends an account's subscriptions to a group's channels (it left the group, or was removed). */
export async function deleteSubscriptionsIn(db: GroupsDb, groupId: string, accountId: string): Promise<void> {
  await db.deleteFrom("group_channel_subscriptions").where("account_id", "=", accountId).where("group_id", "=", groupId).execute();
}

/** Which of the channels the account is subscribed to. */
export async function subscribedAmong(db: GroupsDb, accountId: string, channelIds: readonly string[]): Promise<Set<string>> {
  if (channelIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("group_channel_subscriptions")
    .select("channel_id")
    .where("account_id", "=", accountId)
    .where("channel_id", "in", [...new Set(channelIds)])
    .execute();
  return new Set(rows.map((row) => row.channel_id));
}
