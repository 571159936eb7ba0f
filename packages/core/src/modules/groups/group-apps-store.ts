import type { Kysely } from "kysely";
import type { Database, Timestamp } from "../../ports/storage-schema.js";
import type { GroupTables } from "./group-tables-store.js";

/**
 * A group's choice about one application: installed or not. A group that
 * never chose has the application's default, so an application installed by
 * default can be uninstalled, and a row is written only by a choice.
 */
export interface GroupAppsTable {
  group_id: string;
  app_id: string;
  installed: boolean | number;
  changed_by: string | null;
  changed_at: Timestamp;
}

// A type, not an interface: Kysely's withTables wants an object type with an index signature.
type AppsTables = GroupTables & { group_apps: GroupAppsTable };
export type GroupAppsDb = Kysely<Database & AppsTables>;

export function groupAppsDb(db: Kysely<Database>): GroupAppsDb {
  return db.withTables<AppsTables>();
}

export type GroupAppRow = GroupAppsTable;

/** The group's choices, by application. */
export async function appChoicesOf(db: GroupAppsDb, groupId: string): Promise<Map<string, GroupAppRow>> {
  const rows = await db.selectFrom("group_apps").selectAll().where("group_id", "=", groupId).execute();
  return new Map(rows.map((row) => [row.app_id, row]));
}

/**
 * Whether the group exists, and its choice about one application (undefined
 * when it never made one), in one statement: what an application's route
 * reads on each request.
 */
export async function appChoiceIn(db: GroupAppsDb, groupId: string, appId: string): Promise<{ exists: boolean; choice?: GroupAppRow }> {
  const row = await db
    .selectFrom("groups")
    .leftJoin("group_apps", (join) => join.onRef("group_apps.group_id", "=", "groups.id").on("group_apps.app_id", "=", appId))
    .select(["group_apps.installed", "group_apps.changed_by", "group_apps.changed_at", "group_apps.app_id"])
    .where("groups.id", "=", groupId)
    .executeTakeFirst();
  if (!row) return { exists: false };
  if (row.app_id === null || row.installed === null || row.changed_at === null) return { exists: true };
  return {
    exists: true,
    choice: { group_id: groupId, app_id: row.app_id, installed: row.installed, changed_by: row.changed_by, changed_at: row.changed_at },
  };
}

export async function writeAppChoice(db: GroupAppsDb, row: GroupAppRow): Promise<void> {
  await db
    .insertInto("group_apps")
    .values(row)
    .onConflict((conflict) =>
      conflict
        .columns(["group_id", "app_id"])
        .doUpdateSet({ installed: row.installed, changed_by: row.changed_by, changed_at: row.changed_at }),
    )
    .execute();
}
