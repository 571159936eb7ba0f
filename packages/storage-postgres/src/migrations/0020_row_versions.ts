import { migrationStatements, rowVersionsMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** The version of each post and account, raised by the database on every write but a counter's, described once in core (storage/migrations/0020-row-versions.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(rowVersionsMigration, "postgres")) await sql.raw(statement).execute(db);
}
