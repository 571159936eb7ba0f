import { type Kysely, sql } from "kysely";

/**
 * Administration of accounts: when an account was marked sensitive (its
 * media shown behind a warning), as Mastodon's `sensitized_at`. Keep in step
 * with the PostgreSQL migration of the same number: a test compares the two
 * schemas.
 */
const statements = ["ALTER TABLE accounts ADD COLUMN sensitized_at TEXT"];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
