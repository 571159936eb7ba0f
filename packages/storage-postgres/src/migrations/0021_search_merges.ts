import { migrationStatements, searchMergesMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** How SQLite's full-text indexes merge their segments (nothing on PostgreSQL), described once in core (storage/migrations/0021-search-merges.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(searchMergesMigration, "postgres")) await sql.raw(statement).execute(db);
}
