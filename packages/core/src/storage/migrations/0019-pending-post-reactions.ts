import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0019: `pending_post_reactions`, a row for each new local status
 * whose reactions (home fan-out, notifications, streams, the hand-off to
 * federation, and on SQLite its full-text entry) are not all done. The row is
 * written in the status's transaction and deleted once they are, so a status
 * answered just before a crash still gets them: a repeating job runs them
 * again for rows left behind. No foreign key: the row is written before the
 * status (see below), and a status deleted meanwhile leaves a row the job drops.
 *
 * SQLite: the full-text entry of such a status is written with its reactions,
 * in their batched commit, instead of by the insert trigger in the status's
 * own commit: FTS5 writes a segment at every commit that changed it, so ten
 * statuses indexed in one commit write one segment instead of ten. The trigger
 * skips a status that has a pending row, which is why the row comes first;
 * every other insert (remote statuses, boosts have no text) is indexed by the
 * trigger as before. PostgreSQL's GIN index needs nothing.
 */
export const pendingStatusReactionsMigration: MigrationSpec = {
  name: "0019_pending_post_reactions",
  tables: [
    {
      name: "pending_post_reactions",
      columns: { status_id: { type: "text" }, created_at: { type: "timestamp" } },
      primaryKey: ["status_id"],
      // Written and deleted with every status; never more than a few rows.
      withoutRowid: true,
    },
  ],
  raw: {
    sqlite: [
      "DROP TRIGGER statuses_fts_insert",
      `CREATE TRIGGER statuses_fts_insert AFTER INSERT ON statuses
      WHEN new.reblog_of_id IS NULL AND NOT EXISTS (SELECT 1 FROM pending_post_reactions WHERE status_id = new.id) BEGIN
      INSERT INTO statuses_fts_keys (status_id) VALUES (new.id);
      INSERT INTO statuses_fts (rowid, body) VALUES ((SELECT doc FROM statuses_fts_keys WHERE status_id = new.id), coalesce(new.spoiler_text, '') || ' ' || coalesce(new.text, ''));
    END`,
    ],
    postgres: [],
  },
};
