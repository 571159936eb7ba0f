import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/**
 * The writes credential changes make to users and sessions. Kept apart from
 * the account repositories: these are the only places a password or the
 * sign-in email changes outside account creation.
 */

export async function findPasswordHash(db: Kysely<Database>, accountId: string): Promise<string | null> {
  const row = await db.selectFrom("users").select("password_hash").where("account_id", "=", accountId).executeTakeFirst();
  return row?.password_hash ?? null;
}

/** Sets the password hash; null removes password sign-in. */
export async function setPasswordHash(db: Kysely<Database>, accountId: string, passwordHash: string | null, now: string): Promise<void> {
  await db.updateTable("users").set({ password_hash: passwordHash, updated_at: now }).where("account_id", "=", accountId).execute();
}

/** Sets the sign-in email (confirmed: it was verified by code) and the password together. */
export async function setEmailAndPassword(
  db: Kysely<Database>,
  accountId: string,
  email: string,
  passwordHash: string,
  now: string,
): Promise<void> {
  await db
    .updateTable("users")
    .set({ email, email_confirmed_at: now, password_hash: passwordHash, updated_at: now })
    .where("account_id", "=", accountId)
    .execute();
}

/** Revokes every live session of an account, except `keepId` when given; returns how many. */
export async function revokeAccountSessions(
  db: Kysely<Database>,
  accountId: string,
  keepId: string | null,
  now: string,
): Promise<number> {
  let query = db
    .updateTable("sessions")
    .set({ revoked_at: now })
    .where("account_id", "=", accountId)
    .where("revoked_at", "is", null);
  if (keepId !== null) query = query.where("id", "!=", keepId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
