import { type Kysely, type SqlBool, sql } from "kysely";
import { lowestIdAt } from "../../domain/ids.js";
import type { Database } from "../../ports/storage-schema.js";

export interface WeekActivity {
  /** The week's start, in milliseconds. */
  readonly weekStart: number;
  readonly statuses: number;
  readonly logins: number;
  readonly registrations: number;
}

/** Counts per week (each `[start, start + 7 days)`), one query per measure whatever the number of weeks. */
export async function weeklyActivity(db: Kysely<Database>, weekStarts: readonly number[]): Promise<WeekActivity[]> {
  const WEEK_MS = 7 * 86_400_000;
  const bounds = weekStarts.map((start) => ({ start, end: start + WEEK_MS }));
  const oldest = Math.min(...weekStarts);
  const iso = (ms: number) => new Date(ms).toISOString();
  const count = (column: string, from: string, to: string) =>
    sql<number | string>`sum(case when ${sql.ref(column)} >= ${from} and ${sql.ref(column)} < ${to} then 1 else 0 end)`;
  const [statuses, registrations, logins] = await Promise.all([
    db
      .selectFrom("statuses")
      .select(bounds.map((b, i) => count("statuses.id", lowestIdAt("status", b.start), lowestIdAt("status", b.end)).as(`w${i}`)))
      .where("statuses.id", ">=", lowestIdAt("status", oldest))
      .where(sql<SqlBool>`statuses.local = ${sql.lit(true)}`)
      .executeTakeFirst(),
    db
      .selectFrom("accounts")
      .select(bounds.map((b, i) => count("accounts.created_at", iso(b.start), iso(b.end)).as(`w${i}`)))
      .where("accounts.domain", "is", null)
      .where("accounts.created_at", ">=", iso(oldest))
      .executeTakeFirst(),
    // A login is an account that used a session that week, counted once however many sessions it used.
    Promise.all(
      bounds.map((b) =>
        db
          .selectFrom("sessions")
          .select((eb) => eb.fn.count<number | string>("sessions.account_id").distinct().as("n"))
          .where("sessions.last_used_at", ">=", iso(b.start))
          .where("sessions.last_used_at", "<", iso(b.end))
          .executeTakeFirst(),
      ),
    ),
  ]);
  const at = (row: Record<string, unknown> | undefined, i: number) => Number(row?.[`w${i}`] ?? 0);
  return bounds.map((b, i) => ({
    weekStart: b.start,
    statuses: at(statuses, i),
    registrations: at(registrations, i),
    logins: Number(logins[i]?.n ?? 0),
  }));
}

/** Hosts of the other servers this one knows accounts of, but those a suspension covers (its domain or a parent's). */
export async function knownPeers(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom("accounts")
    .select("domain")
    .distinct()
    .where("domain", "is not", null)
    .where(({ exists, not, selectFrom }) =>
      not(
        exists(
          selectFrom("domain_blocks")
            .select("domain_blocks.id")
            .where("domain_blocks.severity", "=", "SUSPEND")
            .where(sql<SqlBool>`(accounts.domain = domain_blocks.domain or accounts.domain like '%.' || domain_blocks.domain)`),
        ),
      ),
    )
    .orderBy("domain", "asc")
    .execute();
  return rows.flatMap((row) => (row.domain ? [row.domain] : []));
}
