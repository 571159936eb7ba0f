import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0021: SQLite's full-text indexes merge their segments sixteen at
 * a time instead of four (FTS5's `automerge`).
 *
 * Why: FTS5 writes what a statement added to its index as a segment of its
 * own once another statement of the transaction begins, and with the default
 * of four it then merges segments on every such write. A batch of incoming
 * activities inserts statuses (their index entries written by the trigger of
 * migration 0009) among its other statements, so each status became a segment
 * and each statement after it paid for merging, a Like's insert many times
 * its cost alone. Merging sixteen at a time takes most of that back; a
 * search reads up to sixteen segments a level instead of four, a small cost
 * to a page for a common word (bench/READING.md, "Measurements behind the
 * code").
 *
 * PostgreSQL's GIN indexes need nothing.
 */
export const searchMergesMigration: MigrationSpec = {
  name: "0021_search_merges",
  raw: {
    sqlite: [
      "INSERT INTO statuses_fts (statuses_fts, rank) VALUES ('automerge', 16)",
      "INSERT INTO accounts_fts (accounts_fts, rank) VALUES ('automerge', 16)",
    ],
    postgres: [],
  },
};
