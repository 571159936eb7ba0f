import { sql } from "kysely";
import { countGroupAccount } from "./group-account-store.js";
import type { IdBounds, GroupsDb, GroupsTable, JoinMode } from "./group-tables-store.js";

export type GroupRow = GroupsTable;

export interface GroupChanges {
  readonly display_name?: string;
  readonly note?: string;
  readonly join_mode?: JoinMode;
  readonly secret?: boolean;
  readonly discoverable?: boolean;
}

export interface DirectoryQuery {
  /** Whose groups are listed beside the directory; null for a guest. */
  readonly viewerId: string | null;
  /** Words the name or display name holds, lower-cased. */
  readonly q?: string;
  /** Only the viewer's groups. */
  readonly mineOnly: boolean;
}

export async function insertGroup(db: GroupsDb, row: GroupRow): Promise<void> {
  await db.insertInto("groups").values(row).execute();
}

export async function findGroup(db: GroupsDb, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom("groups").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function groupsByIds(db: GroupsDb, ids: readonly string[]): Promise<GroupRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("groups").selectAll().where("id", "in", [...new Set(ids)]).execute();
}

export async function updateGroup(db: GroupsDb, id: string, changes: GroupChanges, now: string): Promise<void> {
  await db
    .updateTable("groups")
    .set({ ...changes, updated_at: now })
    .where("id", "=", id)
    .execute();
}

export async function deleteGroupRow(db: GroupsDb, id: string): Promise<void> {
  await db.deleteFrom("groups").where("id", "=", id).execute();
}

/** Moves the member count by `delta`, in the transaction of the membership change. */
export async function countMembers(db: GroupsDb, id: string, delta: number): Promise<void> {
  await db
    .updateTable("groups")
    .set((eb) => ({ members_count: eb("members_count", "+", delta) }))
    .where("id", "=", id)
    .execute();
  await countGroupAccount(db, id, "followers_count", delta);
}

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
function likePattern(words: string): string {
  return `%${words.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * A page of the directory: discoverable groups that are not secret, and the
 * viewer's own groups (secret ones included), newest first.
 */
export async function directoryPage(db: GroupsDb, query: DirectoryQuery, bounds: IdBounds): Promise<GroupRow[]> {
  const { viewerId } = query;
  let select = db.selectFrom("groups").selectAll();
  const mine = viewerId === null ? null : db.selectFrom("group_members").select("group_id").where("account_id", "=", viewerId);
  if (query.mineOnly) {
    if (mine === null) return [];
    select = select.where("id", "in", mine);
  } else {
    select = select.where((eb) => {
      const listed = eb.and([eb("secret", "=", false), eb("discoverable", "=", true)]);
      return mine === null ? listed : eb.or([listed, eb("id", "in", mine)]);
    });
  }
  if (query.q) {
    const pattern = likePattern(query.q);
    // SQLite's LIKE has no escape character unless told; PostgreSQL's is the backslash already.
    select = select.where(sql<boolean>`(lower(name) LIKE ${pattern} ESCAPE '\\' OR lower(display_name) LIKE ${pattern} ESCAPE '\\')`);
  }
  if (bounds.above !== undefined) select = select.where("id", ">", bounds.above);
  if (bounds.below !== undefined) select = select.where("id", "<", bounds.below);
  return select
    .orderBy("id", bounds.ascending ? "asc" : "desc")
    .limit(bounds.limit)
    .execute();
}
