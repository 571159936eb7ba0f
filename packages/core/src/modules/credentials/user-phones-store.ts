import type { Kysely, Selectable } from "kysely";
import type { Database, UserPhonesTable } from "../../ports/storage-schema.js";

export type UserPhoneRow = Selectable<UserPhonesTable>;

export async function findPhoneOfAccount(db: Kysely<Database>, accountId: string): Promise<UserPhoneRow | null> {
  return (await db.selectFrom("user_phones").selectAll().where("account_id", "=", accountId).executeTakeFirst()) ?? null;
}

/** The account a phone number belongs to, if any. */
export async function findAccountIdByPhone(db: Kysely<Database>, phone: string): Promise<string | null> {
  const row = await db.selectFrom("user_phones").select("account_id").where("phone", "=", phone).executeTakeFirst();
  return row?.account_id ?? null;
}

/** Sets (or replaces) the account's verified number. */
export async function upsertPhone(db: Kysely<Database>, accountId: string, phone: string, now: string): Promise<void> {
  await db
    .insertInto("user_phones")
    .values({ account_id: accountId, phone, verified_at: now, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("account_id").doUpdateSet({ phone, verified_at: now, updated_at: now }))
    .execute();
}

export async function deletePhone(db: Kysely<Database>, accountId: string): Promise<number> {
  const result = await db.deleteFrom("user_phones").where("account_id", "=", accountId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
