import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface MarkerRecord {
  readonly timeline: string;
  readonly lastReadId: string;
  readonly version: number;
  readonly updatedAt: string;
}

export async function findMarkers(db: Kysely<Database>, accountId: string, timelines: readonly string[]): Promise<MarkerRecord[]> {
  if (timelines.length === 0) return [];
  const rows = await db
    .selectFrom("markers")
    .select(["timeline", "last_read_id", "version", "updated_at"])
    .where("account_id", "=", accountId)
    .where("timeline", "in", timelines)
    .execute();
  return rows.map((row) => ({ timeline: row.timeline, lastReadId: row.last_read_id, version: row.version, updatedAt: row.updated_at }));
}

/** Creates a marker at version 0; false when one already exists (someone else wrote it first). */
export async function insertMarker(
  db: Kysely<Database>,
  accountId: string,
  timeline: string,
  lastReadId: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .insertInto("markers")
    .values({ account_id: accountId, timeline, last_read_id: lastReadId, version: 0, updated_at: at })
    .onConflict((oc) => oc.columns(["account_id", "timeline"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Moves a marker if it is still at `expectedVersion` (optimistic locking); false when it was moved meanwhile. */
export async function moveMarker(
  db: Kysely<Database>,
  accountId: string,
  timeline: string,
  expectedVersion: number,
  lastReadId: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable("markers")
    .set({ last_read_id: lastReadId, version: expectedVersion + 1, updated_at: at })
    .where("account_id", "=", accountId)
    .where("timeline", "=", timeline)
    .where("version", "=", expectedVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
