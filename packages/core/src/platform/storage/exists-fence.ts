import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { capabilitiesOf } from "./storage-handles.js";

/** Whether the engine behind `db` needs its correlated `exists` fenced (`StorageCapabilities.fenceCorrelatedExists`). */
function fencesExists(db: Kysely<Database> | undefined): boolean {
  return capabilitiesOf(db)?.fenceCorrelatedExists === true;
}

const FENCE = sql.raw(" offset 0");
const NO_FENCE = sql.raw("");

/**
 * What ends a correlated `exists (select ...)` subquery written as SQL text so
 * that the engine probes it once per outer row: ` offset 0` where the planner
 * would otherwise join or hash the whole inner table (PostgreSQL does not
 * pull a subquery with an OFFSET into its parent), nothing elsewhere. A
 * handle of no registered storage gets nothing: the results are the same
 * either way.
 */
export function existsFence(db: Kysely<Database> | undefined): RawBuilder<unknown> {
  return fencesExists(db) ? FENCE : NO_FENCE;
}

/** The same fence on a subquery built with Kysely, for `eb.exists(...)`. */
export function fencedSubquery<TB extends keyof Database, O>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<Database, TB, O>,
): SelectQueryBuilder<Database, TB, O> {
  return fencesExists(db) ? query.offset(sql<number>`0`) : query;
}
