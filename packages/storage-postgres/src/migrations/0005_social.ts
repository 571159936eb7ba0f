import { migrationStatements, socialMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** The social core, described once in core (storage/migrations/0005-social.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(socialMigration, "postgres")) await sql.raw(statement).execute(db);
}
