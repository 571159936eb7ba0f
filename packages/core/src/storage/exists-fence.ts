import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { StorageCapabilities } from "../ports/storage.js";
import type { Database } from "./schema.js";

/**
 * The storages whose databases need their correlated `exists` fenced
 * (`StorageCapabilities.fenceCorrelatedExists`), by the Kysely adapter of
 * their handle: a transaction's handle shares its database's adapter, so the
 * queries written against either find the same answer.
 */
const storagesByAdapter = new WeakMap<object, { readonly capabilities: StorageCapabilities }>();

/** Tells `existsFence` which storage `db` belongs to; its capabilities are read when a query is built. */
export function registerStorageHandle(db: Kysely<Database>, storage: { readonly capabilities: StorageCapabilities }): void {
  storagesByAdapter.set(db.getExecutor().adapter, storage);
}

function fencesExists(db: Kysely<Database> | undefined): boolean {
  return db !== undefined && storagesByAdapter.get(db.getExecutor().adapter)?.capabilities.fenceCorrelatedExists === true;
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
