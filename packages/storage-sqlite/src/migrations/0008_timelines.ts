import { migrationStatements, timelinesMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Indexes of the timelines, described once in core (storage/migrations/0008-timelines.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(timelinesMigration, "sqlite")) await sql.raw(statement).execute(db);
}
