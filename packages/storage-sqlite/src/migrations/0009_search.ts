import { migrationStatements, searchMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Full-text search, described once in core (storage/migrations/0009-search.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(searchMigration, "sqlite")) await sql.raw(statement).execute(db);
}
