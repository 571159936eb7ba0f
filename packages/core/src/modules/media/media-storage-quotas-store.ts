import type { Kysely } from "kysely";
import type { Database, StorageQuotasTable } from "../../ports/storage-schema.js";

export async function findStorageQuota(db: Kysely<Database>, accountId: string): Promise<StorageQuotasTable | null> {
  return (await db.selectFrom("storage_quotas").selectAll().where("account_id", "=", accountId).executeTakeFirst()) ?? null;
}

/** Sets a user's own limits; null values fall back to the server's defaults. */
export async function upsertStorageQuota(db: Kysely<Database>, row: StorageQuotasTable): Promise<void> {
  await db
    .insertInto("storage_quotas")
    .values(row)
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({ max_bytes: row.max_bytes, max_files: row.max_files, updated_at: row.updated_at }),
    )
    .execute();
}

/** Whether an account (local or remote) exists, for the storage reports of one user. */
export async function accountExists(db: Kysely<Database>, accountId: string): Promise<boolean> {
  return (await db.selectFrom("accounts").select("id").where("id", "=", accountId).executeTakeFirst()) !== undefined;
}
