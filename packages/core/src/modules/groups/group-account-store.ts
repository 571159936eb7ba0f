import { writeFlag } from "../../platform/storage/boolean-columns.js";
import type { MigrationSpec } from "../../ports/migration-spec.js";
import { paragraphsHtml } from "../../platform/http/html.js";
import type { GroupsDb, GroupsTable } from "./group-tables-store.js";

/**
 * A group's account (see `isGroupAccountId`): its row of `accounts`, with
 * the group's id, name, display name and note, kept with the group. Locked
 * unless the group is OPEN (joining then asks first, as following a locked
 * account does); listed (discoverable, indexable) as the group is, never
 * when secret. It has no user and nobody signs in as it. Its collections
 * are hidden: a group follows nobody, and its members are the group's own
 * list, shown to whoever may see them.
 */

type GroupFields = Pick<GroupsTable, "display_name" | "note" | "join_mode" | "secret" | "discoverable">;

function accountFields(group: Partial<GroupFields>) {
  const secret = group.secret === undefined ? undefined : Boolean(group.secret);
  const listed = group.discoverable === undefined || secret === undefined ? undefined : Boolean(group.discoverable) && !secret;
  return {
    ...(group.display_name !== undefined && { display_name: group.display_name }),
    ...(group.note !== undefined && { note: paragraphsHtml(group.note), note_source: group.note }),
    ...(group.join_mode !== undefined && { locked: group.join_mode !== "OPEN" }),
    ...(listed !== undefined && { discoverable: listed, indexable: listed }),
  };
}

export async function insertGroupAccount(db: GroupsDb, group: GroupsTable): Promise<void> {
  await db
    .insertInto("accounts")
    .values({
      id: group.id,
      username: group.name,
      domain: null,
      acct_key: group.name_key,
      actor_type: "Group",
      display_name: group.display_name,
      note: paragraphsHtml(group.note),
      note_source: group.note,
      locked: group.join_mode !== "OPEN",
      discoverable: Boolean(group.discoverable) && !group.secret,
      indexable: Boolean(group.discoverable) && !group.secret,
      hide_collections: writeFlag(true),
      uri: null,
      url: null,
      created_at: group.created_at,
      updated_at: group.updated_at,
      suspended_at: null,
      silenced_at: null,
      followers_count: Number(group.members_count),
      statuses_count: Number(group.statuses_count),
    })
    .execute();
}

/** Carries a change of the group to its account: what the account shows of the group, and its avatar or header. */
export async function updateGroupAccount(
  db: GroupsDb,
  groupId: string,
  group: Partial<GroupFields>,
  images: { readonly avatarMediaId?: string; readonly headerMediaId?: string },
  now: string,
): Promise<void> {
  await db
    .updateTable("accounts")
    .set({
      ...accountFields(group),
      ...(images.avatarMediaId && { avatar_media_id: images.avatarMediaId }),
      ...(images.headerMediaId && { header_media_id: images.headerMediaId }),
      updated_at: now,
    })
    .where("id", "=", groupId)
    .execute();
}

/** The avatar and header media of groups' accounts, by group. */
export async function groupAccountImages(
  db: GroupsDb,
  groupIds: readonly string[],
): Promise<Map<string, { avatarMediaId: string | null; headerMediaId: string | null }>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("accounts")
    .select(["id", "avatar_media_id", "header_media_id"])
    .where("id", "in", [...new Set(groupIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, { avatarMediaId: row.avatar_media_id, headerMediaId: row.header_media_id }]));
}

/** Moves a counter of the group's account with the group's own (members are its followers), in the same transaction. */
export async function countGroupAccount(
  db: GroupsDb,
  groupId: string,
  counter: "followers_count" | "statuses_count",
  delta: number,
): Promise<void> {
  await db
    .updateTable("accounts")
    .set((eb) => ({ [counter]: eb(counter, "+", delta) }))
    .where("id", "=", groupId)
    .execute();
}

/**
 * A deleted group's account is suspended rather than deleted (statuses,
 * notifications, blocks and notes may still name it, and Mastodon shows a
 * suspended account as an empty shell), and its name is given back: a
 * period is in no username, so its acct key can be nobody's.
 */
export async function retireGroupAccount(db: GroupsDb, groupId: string, now: string): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ suspended_at: now, acct_key: `${groupId}.deleted`, discoverable: false, indexable: false, updated_at: now })
    .where("id", "=", groupId)
    .execute();
}

/**
 * SQL that gives a plain-text note column as an account's note (HTML), for
 * the migrations that make accounts of existing rows: one paragraph,
 * escaped, where `paragraphsHtml` would split paragraphs and lines.
 */
export function noteHtmlSql(column: string): string {
  return `CASE WHEN trim(${column}) = '' THEN '' ELSE '<p>' || replace(replace(replace(trim(${column}), '&', '&amp;'), '<', '&lt;'), '>', '&gt;') || '</p>' END`;
}

/** SQL that makes the account of every group that has none (groups made before groups were accounts). */
function backfill(flag: (value: boolean) => string, listed: string): string {
  const note = noteHtmlSql("g.note");
  return `INSERT INTO accounts (id, username, domain, acct_key, actor_type, display_name, note, note_source, locked, discoverable, indexable,
      hide_collections, uri, url, created_at, updated_at, suspended_at, silenced_at, followers_count, statuses_count)
    SELECT g.id, g.name, NULL, g.name_key, 'Group', g.display_name, ${note}, g.note,
      CASE WHEN g.join_mode = 'OPEN' THEN ${flag(false)} ELSE ${flag(true)} END, ${listed}, ${listed},
      ${flag(true)}, NULL, NULL, g.created_at, g.updated_at, NULL, NULL, g.members_count, g.statuses_count
    FROM groups g
    WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = g.id OR a.acct_key = g.name_key)`;
}

/**
 * Gives the groups that exist their accounts. A group whose name an account
 * took meanwhile (before the shared namespace was enforced both ways) is
 * left without one, to be renamed: its account would take that account's name.
 */
export const groupAccountsMigration: MigrationSpec = {
  name: "groups_0005_group_accounts",
  raw: {
    sqlite: [backfill((value) => (value ? "1" : "0"), "CASE WHEN g.discoverable = 1 AND g.secret = 0 THEN 1 ELSE 0 END")],
    postgres: [backfill((value) => (value ? "true" : "false"), "(g.discoverable AND NOT g.secret)")],
  },
};
