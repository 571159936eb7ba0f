import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../storage/compiled-once.js";
import type { Database } from "../../ports/storage-schema.js";

export interface FederationKvEntry {
  readonly key: string;
  readonly value: string;
}

/** The condition that an entry of `federation_kv` has not expired at `now`. */
export function live(now: string) {
  return sql<boolean>`(expires_at is null or expires_at > ${now})`;
}

/** The entry under `key` unless it has expired: its value and when it expires (null: never). */
export async function readFederationKvEntry(
  db: Kysely<Database>,
  key: string,
  now: string,
): Promise<{ value: string; expiresAt: string | null } | undefined> {
  const [row] = await selectLiveEntry(db, { key, now });
  return row && { value: row.value, expiresAt: row.expires_at };
}

// Compiled once: every inbox POST reads its key and its replay guard here.
const selectLiveEntry = compiledOnce((db, args: { key: string; now: string }) =>
  db.selectFrom("federation_kv").select(["value", "expires_at"]).where("key", "=", args.key).where(live(args.now)),
);

export async function writeFederationKv(db: Kysely<Database>, key: string, value: string, expiresAt: string | null): Promise<void> {
  await db
    .insertInto("federation_kv")
    .values({ key, value, expires_at: expiresAt })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, expires_at: expiresAt }))
    .execute();
}

export async function deleteFederationKv(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom("federation_kv").where("key", "=", key).execute();
}

/**
 * Replaces the value only if the live value is `expected` (undefined: no live
 * value). One conditional statement, so two writers cannot both win.
 */
export async function compareAndSwapFederationKv(
  db: Kysely<Database>,
  key: string,
  expected: string | undefined,
  value: string,
  expiresAt: string | null,
  now: string,
): Promise<boolean> {
  if (expected === undefined) {
    // An expired row counts as absent: it may be overwritten.
    await db.deleteFrom("federation_kv").where("key", "=", key).where(sql<boolean>`expires_at <= ${now}`).execute();
    const inserted = await db
      .insertInto("federation_kv")
      .values({ key, value, expires_at: expiresAt })
      .onConflict((oc) => oc.column("key").doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  }
  const updated = await db
    .updateTable("federation_kv")
    .set({ value, expires_at: expiresAt })
    .where("key", "=", key)
    .where("value", "=", expected)
    .where(live(now))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Live entries whose key starts with `prefix` (a string prefix of the encoded key), in key order. */
export async function listFederationKv(db: Kysely<Database>, prefix: string, now: string): Promise<FederationKvEntry[]> {
  let query = db.selectFrom("federation_kv").select(["key", "value"]).where(live(now));
  if (prefix) query = query.where(sql<boolean>`substr(key, 1, ${prefix.length}) = ${prefix}`);
  return query.orderBy("key").execute();
}

/** Removes expired entries; returns how many. */
export async function purgeExpiredFederationKv(db: Kysely<Database>, now: string): Promise<number> {
  const result = await db.deleteFrom("federation_kv").where("expires_at", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
