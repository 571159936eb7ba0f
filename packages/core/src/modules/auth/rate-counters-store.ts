import type { Kysely } from "kysely";
import type { CounterState } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * A counter's current window without counting a hit: limits on failed
 * attempts look before trying and count only failures. Null when no window
 * is open.
 */
export async function peekCounter(db: Kysely<Database>, key: string, now: Date): Promise<CounterState | null> {
  const row = await db
    .selectFrom("rate_counters")
    .select(["count", "window_ends_at"])
    .where("key", "=", key)
    .where("window_ends_at", ">", now.toISOString())
    .executeTakeFirst();
  return row ? { count: Number(row.count), windowEndsAt: new Date(row.window_ends_at) } : null;
}
