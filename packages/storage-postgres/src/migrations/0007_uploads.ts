import { migrationStatements, uploadsMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Uploads, described once in core (storage/migrations/0007-uploads.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(uploadsMigration, "postgres")) await sql.raw(statement).execute(db);
}
