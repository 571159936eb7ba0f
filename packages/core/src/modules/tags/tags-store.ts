import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface TagRecord {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly usable: boolean;
  readonly trendable: boolean;
  readonly lastStatusAt: string | null;
}

function toRecord(row: {
  id: string;
  name: string;
  display_name: string;
  usable: unknown;
  trendable: unknown;
  last_status_at: string | null;
}): TagRecord {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    usable: row.usable === true || row.usable === 1,
    trendable: row.trendable === true || row.trendable === 1,
    lastStatusAt: row.last_status_at,
  };
}

const COLUMNS = ["id", "name", "display_name", "usable", "trendable", "last_status_at"] as const;

export async function findTagByName(db: Kysely<Database>, name: string): Promise<TagRecord | null> {
  const row = await db.selectFrom("tags").select(COLUMNS).where("name", "=", name).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findTagsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<TagRecord[]> {
  if (ids.length === 0) return [];
  return (
    await db
      .selectFrom("tags")
      .select(COLUMNS)
      .where("id", "in", [...ids])
      .execute()
  ).map(toRecord);
}

/** The tag of that name, created when missing (following a tag nobody has used yet is allowed). */
export async function ensureTag(
  db: Kysely<Database>,
  tag: { id: string; name: string; displayName: string; now: string },
): Promise<TagRecord> {
  await db
    .insertInto("tags")
    .values({ id: tag.id, name: tag.name, display_name: tag.displayName, created_at: tag.now, updated_at: tag.now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const found = await findTagByName(db, tag.name);
  if (!found) throw new Error(`Tag ${tag.name} vanished after insert`);
  return found;
}

/** Which of the tags the account follows. */
export async function followedTagIds(db: Kysely<Database>, accountId: string, tagIds: readonly string[]): Promise<Set<string>> {
  if (tagIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("tag_follows")
    .select("tag_id")
    .where("account_id", "=", accountId)
    .where("tag_id", "in", [...tagIds])
    .execute();
  return new Set(rows.map((row) => row.tag_id));
}

export async function insertTagFollow(
  db: Kysely<Database>,
  follow: { id: string; accountId: string; tagId: string; now: string },
): Promise<void> {
  await db
    .insertInto("tag_follows")
    .values({ id: follow.id, account_id: follow.accountId, tag_id: follow.tagId, created_at: follow.now })
    .onConflict((oc) => oc.columns(["account_id", "tag_id"]).doNothing())
    .execute();
}

export async function deleteTagFollow(db: Kysely<Database>, accountId: string, tagId: string): Promise<void> {
  await db.deleteFrom("tag_follows").where("account_id", "=", accountId).where("tag_id", "=", tagId).execute();
}

/** One page of an account's followed tags, most recently followed first; the cursor is the follow's id. */
export async function listTagFollows(
  db: Kysely<Database>,
  accountId: string,
  page: { readonly limit: number; readonly maxId?: string; readonly minId?: string; readonly sinceId?: string },
): Promise<{ followId: string; tag: TagRecord }[]> {
  let query = db
    .selectFrom("tag_follows")
    .innerJoin("tags", "tags.id", "tag_follows.tag_id")
    .select([
      "tag_follows.id as follow_id",
      "tags.id",
      "tags.name",
      "tags.display_name",
      "tags.usable",
      "tags.trendable",
      "tags.last_status_at",
    ])
    .where("tag_follows.account_id", "=", accountId);
  if (page.maxId) query = query.where("tag_follows.id", "<", page.maxId);
  if (page.sinceId) query = query.where("tag_follows.id", ">", page.sinceId);
  if (page.minId) query = query.where("tag_follows.id", ">", page.minId);
  const rows = await query
    .orderBy("tag_follows.id", page.minId ? "asc" : "desc")
    .limit(page.limit)
    .execute();
  if (page.minId) rows.reverse();
  return rows.map((row) => ({ followId: row.follow_id, tag: toRecord(row) }));
}

export interface TagUse {
  readonly tagId: string;
  readonly accountId: string;
  readonly createdAt: string;
}

/** Uses of the tags by public statuses written since `sinceId` (ids are time-ordered), boosts excluded. */
export async function recentTagUses(db: Kysely<Database>, tagIds: readonly string[], sinceId: string): Promise<TagUse[]> {
  if (tagIds.length === 0) return [];
  const rows = await db
    .selectFrom("status_tags")
    .innerJoin("statuses", "statuses.id", "status_tags.status_id")
    .select(["status_tags.tag_id", "statuses.account_id", "statuses.created_at"])
    .where("status_tags.tag_id", "in", [...tagIds])
    .where("statuses.id", ">=", sinceId)
    .where("statuses.visibility", "=", "public")
    .where(sql<SqlBool>`statuses.reblog_of_id is null`)
    .execute();
  return rows.map((row) => ({ tagId: row.tag_id, accountId: row.account_id, createdAt: row.created_at }));
}

/** Local accounts following any hashtag of a status, the author excepted: readers a public status reaches through followed tags. */
export async function tagFollowerIdsOfStatus(db: Kysely<Database>, statusId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("status_tags")
    .innerJoin("tag_follows", "tag_follows.tag_id", "status_tags.tag_id")
    .innerJoin("statuses", "statuses.id", "status_tags.status_id")
    .innerJoin("accounts", "accounts.id", "tag_follows.account_id")
    .select("tag_follows.account_id")
    .distinct()
    .where("status_tags.status_id", "=", statusId)
    .where("accounts.domain", "is", null)
    .where(sql<SqlBool>`tag_follows.account_id <> statuses.account_id`)
    .execute();
  return rows.map((row) => row.account_id);
}
