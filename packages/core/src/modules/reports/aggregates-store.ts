import { sql } from "kysely";
import type { ReportsDb, TargetType } from "./report-tables-store.js";

/** Where a page of aggregated entries starts: after the entry with this latest date and target. */
export interface AggregateCursor {
  readonly latestReportedAt: string;
  readonly targetId: string;
}

/** One reported subject, counted in SQL. */
export interface AggregateRow {
  readonly target_id: string;
  readonly total_count: number | string;
  readonly open_count: number | string;
  readonly latest_reported_at: string;
  readonly latest_action_taken_at: string | null;
  /** The target's unresolved report if it has one, else its newest. */
  readonly representative_id: string;
}

const UNRESOLVED = sql`state IN ('open', 'under_review')`;

/**
 * The reported subjects of a type with their counts and latest dates, most
 * recently reported first, grouped and counted by the database: one query a
 * page, whatever the number of reports.
 */
export async function aggregateTargets(
  db: ReportsDb,
  targetType: TargetType,
  scopeGroupId: string | undefined,
  after: AggregateCursor | null,
  limit: number,
): Promise<AggregateRow[]> {
  const latest = sql<string>`max(last_reported_at)`;
  let query = db
    .selectFrom("reports")
    .select([
      "target_id",
      sql<number>`count(*)`.as("total_count"),
      sql<number>`sum(CASE WHEN ${UNRESOLVED} THEN 1 ELSE 0 END)`.as("open_count"),
      latest.as("latest_reported_at"),
      sql<string | null>`max(action_taken_at)`.as("latest_action_taken_at"),
      sql<string>`coalesce(max(CASE WHEN ${UNRESOLVED} THEN id END), max(id))`.as("representative_id"),
    ])
    .where("target_type", "=", targetType)
    .groupBy("target_id");
  if (scopeGroupId !== undefined) query = query.where("scope_group_id", "=", scopeGroupId);
  if (after) {
    query = query.having(
      sql<boolean>`(max(last_reported_at) < ${after.latestReportedAt} OR (max(last_reported_at) = ${after.latestReportedAt} AND target_id < ${after.targetId}))`,
    );
  }
  return query.orderBy(latest, "desc").orderBy("target_id", "desc").limit(limit).execute();
}
