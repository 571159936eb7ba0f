import type { Kysely, Selectable, Updateable } from "kysely";
import type { LocalAccount } from "../../domain/accounts.js";
import { type ActorType, acctKey } from "../../domain/accounts.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import {
  type AccountUpdate,
  type AccountsTable,
  type Database,
  type NewAccountRow,
  type NewUserRow,
  type UsersTable,
  toBool,
} from "../../ports/storage-schema.js";

type LocalAccountRow = Selectable<AccountsTable> &
  Pick<Selectable<UsersTable>, "account_id" | "email" | "email_confirmed_at" | "password_hash" | "approved" | "disabled_at" | "locale">;

function toLocalAccount(row: LocalAccountRow): LocalAccount {
  return {
    id: row.id,
    username: row.username,
    displayName: row.display_name,
    note: row.note,
    actorType: row.actor_type as ActorType,
    locked: toBool(row.locked),
    discoverable: toBool(row.discoverable),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    email: row.email,
    emailConfirmed: row.email_confirmed_at !== null,
    approved: toBool(row.approved),
    disabled: row.disabled_at !== null,
    suspended: row.suspended_at !== null,
    silenced: row.silenced_at !== null,
  };
}

/** The rows of these accounts, local or remote, in no particular order: every rendered status and notification asks for them. */
export async function findAccountRows(db: Kysely<Database>, ids: readonly string[]): Promise<Selectable<AccountsTable>[]> {
  if (ids.length === 0) return [];
  return selectAccountRows(db, { ids });
}

/** One account's row, local or remote, or null (compiled once with the lists: listeners and deliveries ask for nearly every activity). */
export async function findAccountById(db: Kysely<Database>, id: string): Promise<Selectable<AccountsTable> | null> {
  return (await findAccountRows(db, [id]))[0] ?? null;
}

const selectAccountRows = compiledOnce((db, args: { ids: readonly string[] }) =>
  db.selectFrom("accounts").selectAll().where("id", "in", args.ids),
);

/** What of an account changes without a new version (migration 0020): its counters and the date of its last status. */
export type AccountCounter = "statuses_count" | "followers_count" | "following_count" | "last_status_at";
export const ACCOUNT_COUNTERS: readonly AccountCounter[] = ["statuses_count", "followers_count", "following_count", "last_status_at"];
export type AccountVersionRow = Pick<Selectable<AccountsTable>, "id" | "version" | AccountCounter>;

/** The version and counters of these accounts: what tells whether a kept row is current. */
export async function findAccountVersions(db: Kysely<Database>, ids: readonly string[]): Promise<AccountVersionRow[]> {
  if (ids.length === 0) return [];
  return selectAccountVersions(db, { ids });
}

const selectAccountVersions = compiledOnce((db, args: { ids: readonly string[] }) =>
  db
    .selectFrom("accounts")
    .select(["id", "version", ...ACCOUNT_COUNTERS])
    .where("id", "in", args.ids),
);

function selectLocalAccounts(db: Kysely<Database>) {
  return db
    .selectFrom("accounts")
    .innerJoin("users", "users.account_id", "accounts.id")
    .selectAll("accounts")
    .select([
      "users.account_id",
      "users.email",
      "users.email_confirmed_at",
      "users.password_hash",
      "users.approved",
      "users.disabled_at",
      "users.locale",
    ]);
}

export async function insertLocalAccount(db: Kysely<Database>, account: NewAccountRow, user: NewUserRow): Promise<void> {
  await db.insertInto("accounts").values(account).execute();
  await db.insertInto("users").values(user).execute();
}

export async function findLocalAccountById(db: Kysely<Database>, id: string): Promise<LocalAccount | null> {
  const row = await selectLocalAccounts(db).where("accounts.id", "=", id).executeTakeFirst();
  return row ? toLocalAccount(row) : null;
}

export async function findLocalAccountByUsername(db: Kysely<Database>, username: string): Promise<LocalAccount | null> {
  const row = await selectLocalAccounts(db)
    .where("accounts.acct_key", "=", username.toLowerCase())
    .where("accounts.domain", "is", null)
    .executeTakeFirst();
  return row ? toLocalAccount(row) : null;
}

/** The account and its password hash, for sign-in by username or email. */
export async function findLoginByIdentifier(
  db: Kysely<Database>,
  identifier: string,
): Promise<{ account: LocalAccount; passwordHash: string | null } | null> {
  const key = identifier.toLowerCase();
  const row = await selectLocalAccounts(db)
    .where("accounts.domain", "is", null)
    .where((eb) => eb.or([eb("accounts.acct_key", "=", key), eb("users.email", "=", key)]))
    .executeTakeFirst();
  return row ? { account: toLocalAccount(row), passwordHash: row.password_hash } : null;
}

/**
 * Whether a local name is taken: the one place that says so, for people's
 * accounts and for groups (whose accounts bear their names), case aside.
 * Whatever else shares the server's namespace is to be checked here too.
 */
export async function usernameTaken(db: Kysely<Database>, username: string): Promise<boolean> {
  return acctKeyExists(db, acctKey(username, null));
}

export async function acctKeyExists(db: Kysely<Database>, acctKey: string): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("id").where("acct_key", "=", acctKey).executeTakeFirst();
  return row !== undefined;
}

export async function emailExists(db: Kysely<Database>, email: string): Promise<boolean> {
  const row = await db.selectFrom("users").select("account_id").where("email", "=", email).executeTakeFirst();
  return row !== undefined;
}

export async function updateUserFlags(
  db: Kysely<Database>,
  accountId: string,
  changes: { approved?: boolean; disabledAt?: string | null; emailConfirmedAt?: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable("users")
    .set({
      ...(changes.approved !== undefined && { approved: changes.approved }),
      ...(changes.disabledAt !== undefined && { disabled_at: changes.disabledAt }),
      ...(changes.emailConfirmedAt !== undefined && { email_confirmed_at: changes.emailConfirmedAt }),
      updated_at: changes.updatedAt,
    })
    .where("account_id", "=", accountId)
    .execute();
}

export async function countLocalAccounts(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("domain", "is", null)
    .where("suspended_at", "is", null)
    // Groups' accounts are no users.
    .where("actor_type", "!=", "Group")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Holds the account's user row for the rest of the transaction (a write
 * takes a row lock in PostgreSQL; SQLite runs one transaction at a time), so
 * a check over several rows of the account (its login identifiers, its
 * stored bytes) and the write that follows cannot interleave with another
 * such change of the same account.
 */
export async function holdUserRow(db: Kysely<Database>, accountId: string, now: string): Promise<void> {
  await db.updateTable("users").set({ updated_at: now }).where("account_id", "=", accountId).execute();
}

/** The id of the account with this acct key (`user` or `user@domain`, lower-cased), or null. */
export async function findAccountIdByAcctKey(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db.selectFrom("accounts").select("id").where("acct_key", "=", key).executeTakeFirst();
  return row?.id ?? null;
}

/** A profile edit: the account's columns and the owner's posting defaults, together. */
export async function updateProfileRows(
  db: Kysely<Database>,
  accountId: string,
  account: AccountUpdate,
  user: Pick<Updateable<UsersTable>, "default_visibility" | "default_sensitive" | "default_language">,
): Promise<void> {
  await db.updateTable("accounts").set(account).where("id", "=", accountId).execute();
  if (Object.keys(user).length > 0) await db.updateTable("users").set(user).where("account_id", "=", accountId).execute();
}

/** Takes an avatar or header away; true when there was one. */
export async function clearProfileImage(
  db: Kysely<Database>,
  accountId: string,
  image: "avatar" | "header",
  now: string,
): Promise<boolean> {
  const column = image === "avatar" ? "avatar_media_id" : "header_media_id";
  const result = await db
    .updateTable("accounts")
    .set({ [column]: null, updated_at: now })
    .where("id", "=", accountId)
    .where(column, "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export type CredentialSourceRow = Pick<Selectable<AccountsTable>, "note" | "note_source" | "fields"> &
  Pick<Selectable<UsersTable>, "default_visibility" | "default_sensitive" | "default_language">;

/** What only the owner of an account sees of it: the sources of its note and fields, and its posting defaults. */
export async function findCredentialSourceRow(db: Kysely<Database>, accountId: string): Promise<CredentialSourceRow | undefined> {
  return db
    .selectFrom("accounts")
    .innerJoin("users", "users.account_id", "accounts.id")
    .select([
      "accounts.note",
      "accounts.note_source",
      "accounts.fields",
      "users.default_visibility",
      "users.default_sensitive",
      "users.default_language",
    ])
    .where("accounts.id", "=", accountId)
    .executeTakeFirst();
}
