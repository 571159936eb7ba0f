import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0023 (SQLite): the full-text entries of statuses from other servers
 * are written a moment after their statuses, many in one statement
 * (modules/search/deferred-search-entries.ts). The insert trigger no longer
 * indexes such a status: another one lists it in `statuses_fts_deferred`, in
 * the status's own transaction, so a status whose entry was not written yet when
 * the process stopped is indexed when it starts again.
 *
 * Why: FTS5 writes what one statement added to its index as a segment of its
 * own, with the structure record that lists the segments, and merges them
 * as they pile up. A status from another server is stored in the batched
 * commit of the incoming activities of the same moment, among their other
 * statements, so each such status was a segment. On the benchmark's small
 * dataset (SQLite, incoming activities, half of them statuses), a status's insert
 * took 129 µs with its entry and takes 74 µs without; the entries written
 * later, 100 to 300 in a statement, cost 17 µs a status.
 *
 * Local statuses are indexed as before: with their reactions where a pending
 * row names them (migration 0019), by the insert trigger otherwise. The
 * table is named for the index it serves, so it is engine-specific like the
 * index (migration 0009) and not compared between engines. PostgreSQL's GIN
 * index needs nothing.
 */
const INDEXED = "new.reblog_of_id IS NULL AND NOT EXISTS (SELECT 1 FROM pending_post_reactions WHERE status_id = new.id)";

export const deferredSearchEntriesMigration: MigrationSpec = {
  name: "0023_deferred_search_entries",
  raw: {
    sqlite: [
      "CREATE TABLE statuses_fts_deferred (status_id TEXT PRIMARY KEY NOT NULL) STRICT, WITHOUT ROWID",
      "DROP TRIGGER statuses_fts_insert",
      `CREATE TRIGGER statuses_fts_insert AFTER INSERT ON statuses WHEN ${INDEXED} AND new.local <> 0 BEGIN
      INSERT INTO statuses_fts_keys (status_id) VALUES (new.id);
      INSERT INTO statuses_fts (rowid, body) VALUES ((SELECT doc FROM statuses_fts_keys WHERE status_id = new.id), coalesce(new.spoiler_text, '') || ' ' || coalesce(new.text, ''));
    END`,
      `CREATE TRIGGER statuses_fts_defer AFTER INSERT ON statuses WHEN ${INDEXED} AND new.local = 0 BEGIN
      INSERT INTO statuses_fts_deferred (status_id) VALUES (new.id);
    END`,
    ],
    postgres: [],
  },
};
