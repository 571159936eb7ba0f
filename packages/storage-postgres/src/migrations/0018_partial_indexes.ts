import { migrationStatements, partialIndexesMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Four indexes made partial, described once in core (storage/migrations/0018-partial-indexes.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(partialIndexesMigration, "postgres")) await sql.raw(statement).execute(db);
}
