import type { Kysely } from "kysely";
import type { Database, JsonText, Timestamp } from "../../ports/storage-schema.js";
import type { GroupTables } from "./group-tables-store.js";

export interface GroupSettingsTable {
  group_id: string;
  key: string;
  /** The whole value, as JSON. */
  value: JsonText;
  updated_by: string | null;
  updated_at: Timestamp;
}

// A type, not an interface: Kysely's withTables wants an object type with an index signature.
type SettingsTables = GroupTables & { group_settings: GroupSettingsTable };
export type GroupSettingsDb = Kysely<Database & SettingsTables>;

export function groupSettingsDb(db: Kysely<Database>): GroupSettingsDb {
  return db.withTables<SettingsTables>();
}

/** The values the group has written among these keys (all of them when `keys` is undefined), by key, as JSON text. */
export async function settingsOf(db: GroupSettingsDb, groupId: string, keys?: readonly string[]): Promise<Map<string, string>> {
  if (keys?.length === 0) return new Map();
  let select = db.selectFrom("group_settings").select(["key", "value"]).where("group_id", "=", groupId);
  if (keys !== undefined) select = select.where("key", "in", [...new Set(keys)]);
  const rows = await select.execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}

export async function writeSetting(db: GroupSettingsDb, row: GroupSettingsTable): Promise<void> {
  await db
    .insertInto("group_settings")
    .values(row)
    .onConflict((conflict) =>
      conflict.columns(["group_id", "key"]).doUpdateSet({ value: row.value, updated_by: row.updated_by, updated_at: row.updated_at }),
    )
    .execute();
}

export async function deleteSettings(db: GroupSettingsDb, groupId: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db
    .deleteFrom("group_settings")
    .where("group_id", "=", groupId)
    .where("key", "in", [...keys])
    .execute();
}
