import { type Kysely, sql } from "kysely";
import type { ConsumeOnceInput, CounterState } from "../../ports/storage.js";
import type { Database, OneTimeSecretRow } from "../../ports/storage-schema.js";

/**
 * The atomic primitives of the storage port as single SQL statements, in the
 * syntax SQLite (3.35+) and PostgreSQL share. One statement is atomic in both:
 * SQLite runs it under its write lock; PostgreSQL makes a second UPDATE wait
 * for the first one's row lock and re-check its WHERE against the committed
 * row, and makes the losers of an INSERT race take the row lock and update.
 * Never read-then-write: that races.
 */
export async function consumeOnceByUpdate(db: Kysely<Database>, input: ConsumeOnceInput): Promise<OneTimeSecretRow | null> {
  const now = input.now.toISOString();
  const { rows } = await sql<OneTimeSecretRow>`
    UPDATE one_time_secrets SET consumed_at = ${now}
    WHERE kind = ${input.kind} AND secret_hash = ${input.secretHash}
      AND consumed_at IS NULL AND expires_at > ${now}
    RETURNING *`.execute(db);
  return rows[0] ?? null;
}

export async function incrementCounterByUpsert(db: Kysely<Database>, key: string, windowSeconds: number, now: Date): Promise<CounterState> {
  const at = now.toISOString();
  const ends = new Date(now.getTime() + windowSeconds * 1000).toISOString();
  const { rows } = await sql<{ count: number; window_ends_at: string }>`
    INSERT INTO rate_counters (key, count, window_ends_at) VALUES (${key}, 1, ${ends})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN rate_counters.window_ends_at <= ${at} THEN 1 ELSE rate_counters.count + 1 END,
      window_ends_at = CASE WHEN rate_counters.window_ends_at <= ${at} THEN excluded.window_ends_at ELSE rate_counters.window_ends_at END
    RETURNING count, window_ends_at`.execute(db);
  const row = rows[0];
  if (!row) throw new Error("Counter upsert returned no row");
  return { count: Number(row.count), windowEndsAt: new Date(row.window_ends_at) };
}
