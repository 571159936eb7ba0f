import { sql } from "kysely";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import type { MigrationSpec } from "../../ports/migration-spec.js";
import { paragraphsHtml } from "../../platform/http/html.js";
import { noteHtmlSql } from "./group-account-store.js";
import type { GroupChannelsTable as ChannelRow, GroupsDb } from "./group-tables-store.js";

/**
 * A channel's account (see `isGroupAccountId`): its row of `accounts`, with
 * the channel's own `ch_` id and its global username, actor type Group, kept
 * with the channel. Following it is subscribing to it, which members only
 * may do; it is listed as its group is, never when the group is secret.
 * Like a group's, it has no user and hides its collections.
 */

type ChannelFields = Pick<ChannelRow, "global_username" | "global_username_key" | "display_name" | "note">;

export async function insertChannelAccount(db: GroupsDb, channel: ChannelRow): Promise<void> {
  const group = await db.selectFrom("groups").select(["discoverable", "secret"]).where("id", "=", channel.group_id).executeTakeFirst();
  const listed = Boolean(group?.discoverable) && !group?.secret;
  await db
    .insertInto("accounts")
    .values({
      id: channel.id,
      username: channel.global_username,
      domain: null,
      acct_key: channel.global_username_key,
      actor_type: "Group",
      display_name: channel.display_name,
      note: paragraphsHtml(channel.note),
      note_source: channel.note,
      locked: false,
      discoverable: listed,
      indexable: listed,
      hide_collections: writeFlag(true),
      uri: null,
      url: null,
      created_at: channel.created_at,
      updated_at: channel.updated_at,
      suspended_at: null,
      silenced_at: null,
      followers_count: 0,
      statuses_count: Number(channel.statuses_count),
    })
    .execute();
}

/** Carries a change of the channel's names or note to its account. */
export async function updateChannelAccount(db: GroupsDb, channelId: string, changes: Partial<ChannelFields>, now: string): Promise<void> {
  await db
    .updateTable("accounts")
    .set({
      ...(changes.global_username !== undefined && { username: changes.global_username }),
      ...(changes.global_username_key !== undefined && { acct_key: changes.global_username_key }),
      ...(changes.display_name !== undefined && { display_name: changes.display_name }),
      ...(changes.note !== undefined && { note: paragraphsHtml(changes.note), note_source: changes.note }),
      updated_at: now,
    })
    .where("id", "=", channelId)
    .execute();
}

/** Lists the group's channels' accounts as the group is listed (discoverable and not secret). */
export async function listChannelAccounts(db: GroupsDb, groupId: string, listed: boolean, now: string): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ discoverable: listed, indexable: listed, updated_at: now })
    .where("id", "in", db.selectFrom("group_channels").select("id").where("group_id", "=", groupId))
    .execute();
}

/** Moves the status count of a channel's account with the channel's own. */
export async function countChannelAccount(db: GroupsDb, channelId: string, delta: number): Promise<void> {
  await db
    .updateTable("accounts")
    .set((eb) => ({ statuses_count: eb("statuses_count", "+", delta) }))
    .where("id", "=", channelId)
    .execute();
}

/**
 * Retires the accounts of channels that go (one channel, or every channel
 * of a group that is deleted): suspended rather than deleted, as a group's
 * is, and their names given back.
 */
export async function retireChannelAccounts(
  db: GroupsDb,
  of: { readonly channel: string } | { readonly group: string },
  now: string,
): Promise<void> {
  const ids =
    "channel" in of
      ? [of.channel]
      : (await db.selectFrom("group_channels").select("id").where("group_id", "=", of.group).execute()).map((row) => row.id);
  if (ids.length === 0) return;
  await db
    .updateTable("accounts")
    .set({
      suspended_at: now,
      // A period is in no username: the key can be nobody's.
      acct_key: sql<string>`id || '.deleted'`,
      discoverable: false,
      indexable: false,
      updated_at: now,
    })
    .where("id", "in", ids)
    .execute();
}

/** SQL that makes the account of every channel that has none (channels made before channels were accounts). */
function backfill(flag: (value: boolean) => string, listed: string): string {
  const note = noteHtmlSql("c.note");
  return `INSERT INTO accounts (id, username, domain, acct_key, actor_type, display_name, note, note_source, locked, discoverable, indexable,
      hide_collections, uri, url, created_at, updated_at, suspended_at, silenced_at, followers_count, statuses_count)
    SELECT c.id, c.global_username, NULL, c.global_username_key, 'Group', c.display_name, ${note}, c.note,
      ${flag(false)}, ${listed}, ${listed}, ${flag(true)}, NULL, NULL, c.created_at, c.updated_at, NULL, NULL, 0, c.statuses_count
    FROM group_channels c JOIN groups g ON g.id = c.group_id
    WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.id OR a.acct_key = c.global_username_key)`;
}

/**
 * Gives the channels that exist their accounts. A channel whose global
 * username an account took meanwhile is left without one, to be renamed.
 */
export const channelAccountsMigration: MigrationSpec = {
  name: "groups_0006_channel_accounts",
  raw: {
    sqlite: [backfill((value) => (value ? "1" : "0"), "CASE WHEN g.discoverable = 1 AND g.secret = 0 THEN 1 ELSE 0 END")],
    postgres: [backfill((value) => (value ? "true" : "false"), "(g.discoverable AND NOT g.secret)")],
  },
};
