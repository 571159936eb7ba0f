import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import { type Database, toBool } from "../../ports/storage-schema.js";

/** A local account as the signup review shows it. */
export interface SignupRow {
  readonly accountId: string;
  readonly username: string;
  readonly email: string;
  readonly emailConfirmed: boolean;
  readonly approved: boolean;
  readonly disabled: boolean;
  readonly locale: string | null;
  readonly reason: string | null;
  readonly createdAt: string;
}

function selectSignups(db: Kysely<Database>) {
  return db
    .selectFrom("accounts")
    .innerJoin("users", "users.account_id", "accounts.id")
    .select([
      "accounts.id",
      "accounts.username",
      "accounts.created_at",
      "users.email",
      "users.email_confirmed_at",
      "users.approved",
      "users.disabled_at",
      "users.locale",
      "users.signup_reason",
    ])
    .where("accounts.domain", "is", null);
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectSignups>["executeTakeFirstOrThrow"]>>;

function toSignup(row: Selected): SignupRow {
  return {
    accountId: row.id,
    username: row.username,
    email: row.email,
    emailConfirmed: row.email_confirmed_at !== null,
    approved: toBool(row.approved),
    disabled: row.disabled_at !== null,
    locale: row.locale,
    reason: row.signup_reason,
    createdAt: row.created_at,
  };
}

/** Records what a person gave when signing up, beside the user row the account service made. */
export async function setSignupDetails(
  db: Kysely<Database>,
  accountId: string,
  details: { readonly reason: string | null; readonly locale: string | null; readonly updatedAt: string },
): Promise<void> {
  await db
    .updateTable("users")
    .set({ signup_reason: details.reason, locale: details.locale, updated_at: details.updatedAt })
    .where("account_id", "=", accountId)
    .execute();
}

/** Local accounts awaiting approval, newest first. */
export async function listPendingSignups(db: Kysely<Database>, page: PageRequest): Promise<SignupRow[]> {
  const rows = await fetchIdPage(selectSignups(db).where("users.approved", "=", false), "accounts.id", page);
  return rows.map(toSignup);
}

export async function findSignup(db: Kysely<Database>, accountId: string): Promise<SignupRow | null> {
  const row = await selectSignups(db).where("accounts.id", "=", accountId).executeTakeFirst();
  return row ? toSignup(row) : null;
}

/** Approves a pending account; false when it was not pending (already approved, or gone), so two reviewers cannot both act. */
export async function approvePendingSignup(db: Kysely<Database>, accountId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable("users")
    .set({ approved: true, updated_at: now })
    .where("account_id", "=", accountId)
    .where("approved", "=", false)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Removes a pending account and everything hanging off it (user row, role
 * assignments and sessions go by foreign-key cascade; its one-time secrets
 * explicitly). False when the account was not pending.
 */
export async function deletePendingSignup(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const pending = await db
    .selectFrom("users")
    .select("account_id")
    .where("account_id", "=", accountId)
    .where("approved", "=", false)
    .executeTakeFirst();
  if (!pending) return false;
  await db.deleteFrom("one_time_secrets").where("subject_id", "=", accountId).execute();
  await db.deleteFrom("users").where("account_id", "=", accountId).execute();
  await db.deleteFrom("accounts").where("id", "=", accountId).execute();
  return true;
}

/** Withdraws the unconsumed secrets of one kind issued for a subject (an older confirmation link, when a new one is sent). */
export async function deleteUnconsumedSecrets(db: Kysely<Database>, kind: string, subjectId: string): Promise<void> {
  await db
    .deleteFrom("one_time_secrets")
    .where("kind", "=", kind)
    .where("subject_id", "=", subjectId)
    .where("consumed_at", "is", null)
    .execute();
}
