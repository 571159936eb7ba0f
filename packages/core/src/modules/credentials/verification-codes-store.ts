import { type Kysely, sql } from "kysely";
import type { Database, OneTimeSecretRow } from "../../ports/storage-schema.js";

/**
 * Reads and counts on `one_time_secrets` for typed codes and the flags of
 * multi-step flows. Consuming stays with `Storage.consumeOnce`, the one
 * atomic step; these only find a live secret and count wrong tries.
 */

/** The newest live (unconsumed, unexpired) secret of a kind for a subject, or null. */
export async function findLiveSecret(
  db: Kysely<Database>,
  kind: string,
  subjectId: string,
  now: string,
): Promise<OneTimeSecretRow | null> {
  const row = await db
    .selectFrom("one_time_secrets")
    .selectAll()
    .where("kind", "=", kind)
    .where("subject_id", "=", subjectId)
    .where("consumed_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("id", "desc")
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Counts one wrong try on a live secret in one statement; past `maxAttempts`
 * the secret is spent (marked consumed), so concurrent guesses cannot exceed
 * the limit. Returns the tries counted, or null when the secret is no longer live.
 */
export async function countWrongAttempt(db: Kysely<Database>, id: string, maxAttempts: number, now: string): Promise<number | null> {
  const { rows } = await sql<{ attempts: number }>`
    UPDATE one_time_secrets SET attempts = attempts + 1,
      consumed_at = CASE WHEN attempts + 1 >= ${maxAttempts} THEN ${now} ELSE consumed_at END
    WHERE id = ${id} AND consumed_at IS NULL
    RETURNING attempts`.execute(db);
  const row = rows[0];
  return row ? Number(row.attempts) : null;
}

/** Withdraws every live secret of a kind for a subject (a new code replaces the old ones). */
export async function withdrawSecrets(db: Kysely<Database>, kinds: readonly string[], subjectId: string): Promise<void> {
  if (kinds.length === 0) return;
  await db
    .deleteFrom("one_time_secrets")
    .where("kind", "in", kinds)
    .where("subject_id", "=", subjectId)
    .where("consumed_at", "is", null)
    .execute();
}
