import { migrationStatements, statusVersionsMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** The version of each post, raised by the database on every edit, described once in core (storage/migrations/0020-status-versions.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(statusVersionsMigration, "sqlite")) await sql.raw(statement).execute(db);
}
