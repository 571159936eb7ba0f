import { type Kysely, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/**
 * SQLite: writes the full-text entries of statuses the insert trigger left out
 * (those written with a pending-reactions row, migration 0019, and statuses from
 * other servers, migration 0023). A status gone meanwhile, a boost or a status
 * already indexed is skipped, so running it twice writes nothing more. The
 * status's text is read now: an edit made before its entry was written (which
 * the update trigger could not apply) is indexed as it stands.
 */
export async function indexStatusesForSearch(db: Kysely<Database>, statusIds: readonly string[]): Promise<void> {
  if (statusIds.length === 0) return;
  const { rows } = await sql<{ doc: number }>`
    INSERT INTO statuses_fts_keys (status_id)
    SELECT s.id FROM statuses s
    WHERE s.id IN (${sql.join(statusIds)}) AND s.reblog_of_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM statuses_fts_keys k WHERE k.status_id = s.id)
    ORDER BY s.id
    RETURNING doc`.execute(db);
  if (rows.length === 0) return;
  await sql`
    INSERT INTO statuses_fts (rowid, body)
    SELECT k.doc, coalesce(s.spoiler_text, '') || ' ' || coalesce(s.text, '')
    FROM statuses_fts_keys k JOIN statuses s ON s.id = k.status_id
    WHERE k.doc IN (${sql.join(rows.map((row) => row.doc))})`.execute(db);
}

/** SQLite: whether statuses from other servers wait for their full-text entries (migration 0023). */
export async function hasDeferredPosts(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ waiting: number }>`SELECT EXISTS (SELECT 1 FROM statuses_fts_deferred) AS waiting`.execute(db);
  return Boolean(rows[0]?.waiting);
}

/**
 * SQLite: writes the full-text entries of up to `limit` statuses from other
 * servers that the insert trigger left waiting (migration 0023), in one
 * statement, and removes them from the waiting list; returns how many it
 * took (fewer than `limit`: none is left).
 */
export async function indexDeferredPosts(db: Kysely<Database>, limit: number): Promise<number> {
  const { rows } = await sql<{ status_id: string }>`
    DELETE FROM statuses_fts_deferred
    WHERE status_id IN (SELECT status_id FROM statuses_fts_deferred ORDER BY status_id LIMIT ${limit})
    RETURNING status_id`.execute(db);
  await indexStatusesForSearch(
    db,
    rows.map((row) => row.status_id),
  );
  return rows.length;
}
