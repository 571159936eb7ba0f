import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0021: SQLite's full-text indexes merge their segments sixteen at
 * a time instead of four (FTS5's `automerge`).
 *
 * Why: FTS5 writes what a statement added to its index as a segment of its
 * own once another statement of the transaction begins, and with the default
 * of four it then merges segments on every such write. A batch of incoming
 * activities inserts posts (their index entries written by the trigger of
 * migration 0009) among its other statements, so each post became a segment
 * and each statement after it paid for merging: on the benchmark's large
 * dataset a Like's insert took 0.13-0.21 ms, against 0.01 ms alone. Sixteen
 * at a time, the inbox's SQLite time an activity went from 0.51-0.65 to
 * 0.29-0.31 ms there (0.39 to 0.32-0.34 ms on the small dataset), the Like's
 * insert to 0.02-0.03 ms; a search reads up to sixteen segments a level
 * instead of four (a page for a common word, alone: 45 to 90 µs).
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
