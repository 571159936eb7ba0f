import { type Kysely, type RawBuilder, sql } from "kysely";
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

const FENCE = sql.raw(" offset 0");
const NO_FENCE = sql.raw("");

/**
 * What ends a correlated `exists (select ...)` subquery so that the engine
 * probes it once per outer row: ` offset 0` where the planner would otherwise
 * join or hash the whole inner table (PostgreSQL does not pull a subquery
 * with an OFFSET into its parent), nothing elsewhere. A handle of no
 * registered storage gets nothing: the results are the same either way.
 */
export function existsFence(db: Kysely<Database> | undefined): RawBuilder<unknown> {
  if (db === undefined) return NO_FENCE;
  return storagesByAdapter.get(db.getExecutor().adapter)?.capabilities.fenceCorrelatedExists === true ? FENCE : NO_FENCE;
}
