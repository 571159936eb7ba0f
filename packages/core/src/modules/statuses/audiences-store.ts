import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** Addresses a status to a closed audience (it is `direct`: its members see it besides those it mentions). */
export async function insertStatusAudience(db: Kysely<Database>, statusId: string, audienceId: string): Promise<void> {
  await db.insertInto("status_audiences").values({ status_id: statusId, audience_id: audienceId }).execute();
}

/** Puts an account in an audience; nothing when it is in it already. */
export async function insertAudienceMember(db: Kysely<Database>, audienceId: string, accountId: string): Promise<void> {
  await db
    .insertInto("audience_members")
    .values({ audience_id: audienceId, account_id: accountId })
    .onConflict((conflict) => conflict.columns(["audience_id", "account_id"]).doNothing())
    .execute();
}

/** Takes an account out of an audience: it no longer sees the audience's statuses. */
export async function deleteAudienceMember(db: Kysely<Database>, audienceId: string, accountId: string): Promise<void> {
  await db.deleteFrom("audience_members").where("audience_id", "=", audienceId).where("account_id", "=", accountId).execute();
}

/** Forgets a whole audience (its statuses stay, seen by their author and those they mention). */
export async function deleteAudience(db: Kysely<Database>, audienceId: string): Promise<void> {
  await db.deleteFrom("audience_members").where("audience_id", "=", audienceId).execute();
}

/** The closed audience a status was posted for, if any. */
export async function audienceOf(db: Kysely<Database>, statusId: string): Promise<string | null> {
  const row = await db.selectFrom("status_audiences").select("audience_id").where("status_id", "=", statusId).executeTakeFirst();
  return row?.audience_id ?? null;
}
