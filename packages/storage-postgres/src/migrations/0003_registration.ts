import { type Kysely, sql } from "kysely";

/**
 * Registration: the email-domain allowlist, and the reason a person gives
 * when signing up in approval mode. Keep in step with the SQLite migration
 * of the same number: a test compares the two schemas.
 */
const statements = [
  `CREATE TABLE email_domain_allows (
    domain text PRIMARY KEY NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  "ALTER TABLE users ADD COLUMN signup_reason text",
];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
