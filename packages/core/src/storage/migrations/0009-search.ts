import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0009: full-text search inside each engine, no search server.
 *
 * SQLite: FTS5 tables `statuses_fts` and `accounts_fts`, kept current by
 * triggers. Their documents are keyed by a small table of stable integers
 * (`*_fts_keys`) rather than by the rowid of `statuses` or `accounts`: those
 * tables have text keys, and VACUUM may renumber the rowids of such tables,
 * which would point the index at the wrong rows.
 *
 * PostgreSQL: GIN indexes over `to_tsvector('simple', ...)` expressions;
 * queries repeat the same expression so the planner uses them, and nothing
 * needs to be kept in step by hand.
 *
 * Both use no stemming (`simple`, `unicode61`): a word matches itself, in any
 * language, case-insensitively. Boosts are not indexed: they have no text.
 * The objects made here are engine-specific and are not part of the schema
 * comparison between the engines.
 */
const STATUS_BODY = "coalesce(spoiler_text, '') || ' ' || coalesce(text, '')";
const ACCOUNT_BODY = "username || ' ' || display_name";

function sqliteIndex(table: "statuses" | "accounts", body: (row: string) => string, when: (row: string) => string): string[] {
  const fts = `${table}_fts`;
  const keys = `${table}_fts_keys`;
  const subject = table === "statuses" ? "status_id" : "account_id";
  const doc = (row: string) => `(SELECT doc FROM ${keys} WHERE ${subject} = ${row}.id)`;
  return [
    `CREATE TABLE ${keys} (doc INTEGER PRIMARY KEY, ${subject} TEXT NOT NULL UNIQUE)`,
    `CREATE VIRTUAL TABLE ${fts} USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
    `INSERT INTO ${keys} (${subject}) SELECT id FROM ${table} AS new WHERE ${when("new")} ORDER BY id`,
    `INSERT INTO ${fts} (rowid, body) SELECT k.doc, ${body("new")} FROM ${table} AS new JOIN ${keys} k ON k.${subject} = new.id`,
    `CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} WHEN ${when("new")} BEGIN
      INSERT INTO ${keys} (${subject}) VALUES (new.id);
      INSERT INTO ${fts} (rowid, body) VALUES (${doc("new")}, ${body("new")});
    END`,
    `CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN
      DELETE FROM ${fts} WHERE rowid = ${doc("old")};
      DELETE FROM ${keys} WHERE ${subject} = old.id;
    END`,
  ];
}

const statusBody = (row: string) => `coalesce(${row}.spoiler_text, '') || ' ' || coalesce(${row}.text, '')`;
const accountBody = (row: string) => `${row}.username || ' ' || ${row}.display_name`;

export const searchMigration: MigrationSpec = {
  name: "0009_search",
  indexes: [
    // Hashtag search by prefix, trends by recent use.
    { table: "tags", name: "tags_last_status_idx", columns: ["last_status_at"] },
  ],
  raw: {
    sqlite: [
      ...sqliteIndex("statuses", statusBody, (row) => `${row}.reblog_of_id IS NULL`),
      `CREATE TRIGGER statuses_fts_update AFTER UPDATE OF text, spoiler_text ON statuses WHEN new.reblog_of_id IS NULL BEGIN
        UPDATE statuses_fts SET body = ${statusBody("new")} WHERE rowid = (SELECT doc FROM statuses_fts_keys WHERE status_id = new.id);
      END`,
      ...sqliteIndex("accounts", accountBody, () => "1"),
      `CREATE TRIGGER accounts_fts_update AFTER UPDATE OF username, display_name ON accounts BEGIN
        UPDATE accounts_fts SET body = ${accountBody("new")} WHERE rowid = (SELECT doc FROM accounts_fts_keys WHERE account_id = new.id);
      END`,
    ],
    postgres: [
      `CREATE INDEX statuses_search_idx ON statuses USING gin (to_tsvector('simple', ${STATUS_BODY})) WHERE reblog_of_id IS NULL`,
      `CREATE INDEX accounts_search_idx ON accounts USING gin (to_tsvector('simple', ${ACCOUNT_BODY}))`,
    ],
  },
};

/** The indexed expressions, which PostgreSQL queries must repeat word for word to use the indexes. */
export const POSTGRES_SEARCH_EXPRESSIONS = { statuses: STATUS_BODY, accounts: ACCOUNT_BODY } as const;
