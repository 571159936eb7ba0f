import type { Kysely } from "kysely";
import type { StorageCapabilities } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * The storage each database handle belongs to, by the handle's Kysely
 * adapter: a transaction's handle shares its database's adapter, so a query
 * written against either reads the same capabilities. Repositories take a
 * handle, not a storage, and ask here what its engine can do.
 */
const storagesByAdapter = new WeakMap<object, { readonly capabilities: StorageCapabilities }>();

/** Tells `capabilitiesOf` which storage `db` belongs to; its capabilities are read when a query is built. */
export function registerStorageHandle(db: Kysely<Database>, storage: { readonly capabilities: StorageCapabilities }): void {
  storagesByAdapter.set(db.getExecutor().adapter, storage);
}

/** What the engine behind `db` can do; undefined for a handle of no registered storage, which gets the plain statements. */
export function capabilitiesOf(db: Kysely<Database> | undefined): StorageCapabilities | undefined {
  return db === undefined ? undefined : storagesByAdapter.get(db.getExecutor().adapter)?.capabilities;
}
