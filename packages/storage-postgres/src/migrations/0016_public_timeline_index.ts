import { migrationStatements, publicTimelineIndexMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** The index of the public timelines, described once in core (storage/migrations/0016-public-timeline-index.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(publicTimelineIndexMigration, "postgres")) await sql.raw(statement).execute(db);
}
