import { deferredSearchEntriesMigration, migrationStatements } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Full-text entries of other servers' posts written a moment later, many at once (nothing on PostgreSQL), described once in core (storage/migrations/0023-deferred-search-entries.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(deferredSearchEntriesMigration, "sqlite")) await sql.raw(statement).execute(db);
}
