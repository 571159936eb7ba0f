import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** Stored settings as key -> parsed JSON value; absent keys take their defaults elsewhere. */
export async function readStoredSettings(db: Kysely<Database>): Promise<Record<string, unknown>> {
  const rows = await db.selectFrom("instance_settings").select(["key", "value"]).execute();
  return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
}

/** When a setting was last stored, or null when it never was (it has its default). */
export async function settingUpdatedAt(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db.selectFrom("instance_settings").select("updated_at").where("key", "=", key).executeTakeFirst();
  return row?.updated_at ?? null;
}

export async function writeSettings(db: Kysely<Database>, values: Record<string, unknown>, now: string): Promise<void> {
  for (const [key, value] of Object.entries(values)) {
    const json = JSON.stringify(value);
    await db
      .insertInto("instance_settings")
      .values({ key, value: json, updated_at: now })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: json, updated_at: now }))
      .execute();
  }
}
