import type { Kysely, Selectable } from "kysely";
import type { Database, PendingPasswordChangesTable } from "../../ports/storage-schema.js";

export type PendingPasswordChangeRow = Selectable<PendingPasswordChangesTable>;

/** Keeps the new password aside; a new request replaces the previous one. */
export async function putPendingPasswordChange(db: Kysely<Database>, row: PendingPasswordChangeRow): Promise<void> {
  await db
    .insertInto("pending_password_changes")
    .values(row)
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({ password_hash: row.password_hash, created_at: row.created_at, expires_at: row.expires_at }),
    )
    .execute();
}

export async function findPendingPasswordChange(db: Kysely<Database>, accountId: string): Promise<PendingPasswordChangeRow | null> {
  return (
    (await db.selectFrom("pending_password_changes").selectAll().where("account_id", "=", accountId).executeTakeFirst()) ?? null
  );
}

export async function deletePendingPasswordChange(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.deleteFrom("pending_password_changes").where("account_id", "=", accountId).execute();
}
