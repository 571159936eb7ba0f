import { migrationStatements, relationshipsMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Profile note sources and indexable, described once in core (storage/migrations/0011-relationships.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(relationshipsMigration, "postgres")) await sql.raw(statement).execute(db);
}
