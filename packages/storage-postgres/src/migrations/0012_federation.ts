import { federationMigration, migrationStatements } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** The foundation of federation, described once in core (storage/migrations/0012-federation.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(federationMigration, "postgres")) await sql.raw(statement).execute(db);
}
