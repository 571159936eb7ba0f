import { type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import { type Database, toBool } from "../../ports/storage-schema.js";

/** An account as administrators see it: the account, and for local ones its user. */
export interface AdminAccountRow {
  readonly id: string;
  readonly username: string;
  readonly domain: string | null;
  readonly actorType: string;
  readonly displayName: string;
  readonly note: string;
  readonly locked: boolean;
  readonly discoverable: boolean;
  readonly uri: string | null;
  readonly url: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly suspendedAt: string | null;
  readonly silencedAt: string | null;
  readonly sensitizedAt: string | null;
  /** Null for remote accounts. */
  readonly user: {
    readonly email: string;
    readonly emailConfirmed: boolean;
    readonly approved: boolean;
    readonly disabled: boolean;
    readonly locale: string | null;
    readonly reason: string | null;
  } | null;
}

export type AccountStatus = "active" | "pending" | "disabled" | "silenced" | "suspended" | "sensitized";

export interface AdminAccountFilter {
  readonly origin?: "local" | "remote";
  readonly statuses?: readonly AccountStatus[];
  /** Accounts holding a role with at least one permission. */
  readonly staff?: boolean;
  readonly roleIds?: readonly string[];
  readonly username?: string;
  readonly displayName?: string;
  readonly byDomain?: string;
  readonly email?: string;
  readonly ip?: string;
}

function selectAdminAccounts(db: Kysely<Database>) {
  return db
    .selectFrom("accounts")
    .leftJoin("users", "users.account_id", "accounts.id")
    .select([
      "accounts.id",
      "accounts.username",
      "accounts.domain",
      "accounts.actor_type",
      "accounts.display_name",
      "accounts.note",
      "accounts.locked",
      "accounts.discoverable",
      "accounts.uri",
      "accounts.url",
      "accounts.created_at",
      "accounts.updated_at",
      "accounts.suspended_at",
      "accounts.silenced_at",
      "accounts.sensitized_at",
      "users.account_id as user_id",
      "users.email",
      "users.email_confirmed_at",
      "users.approved",
      "users.disabled_at",
      "users.locale",
      "users.signup_reason",
    ]);
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectAdminAccounts>["executeTakeFirstOrThrow"]>>;

function toRow(row: Selected): AdminAccountRow {
  return {
    id: row.id,
    username: row.username,
    domain: row.domain,
    actorType: row.actor_type,
    displayName: row.display_name,
    note: row.note,
    locked: toBool(row.locked),
    discoverable: toBool(row.discoverable),
    uri: row.uri,
    url: row.url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    suspendedAt: row.suspended_at,
    silencedAt: row.silenced_at,
    sensitizedAt: row.sensitized_at,
    user:
      row.user_id === null
        ? null
        : {
            email: row.email ?? "",
            emailConfirmed: row.email_confirmed_at !== null,
            approved: toBool(row.approved),
            disabled: row.disabled_at !== null,
            locale: row.locale,
            reason: row.signup_reason,
          },
  };
}

/** `%`, `_` and `\` matched literally in a LIKE pattern. */
function likeEscape(value: string): string {
  return value.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`);
}

export async function findAdminAccount(db: Kysely<Database>, id: string): Promise<AdminAccountRow | null> {
  const row = await selectAdminAccounts(db).where("accounts.id", "=", id).executeTakeFirst();
  return row ? toRow(row) : null;
}

export async function listAdminAccounts(db: Kysely<Database>, filter: AdminAccountFilter, page: PageRequest): Promise<AdminAccountRow[]> {
  let query = selectAdminAccounts(db);
  if (filter.origin === "local") query = query.where("accounts.domain", "is", null);
  if (filter.origin === "remote") query = query.where("accounts.domain", "is not", null);
  for (const status of filter.statuses ?? []) {
    switch (status) {
      case "active":
        query = query
          .where("accounts.suspended_at", "is", null)
          .where((eb) =>
            eb.or([eb("users.account_id", "is", null), eb.and([eb("users.approved", "=", true), eb("users.disabled_at", "is", null)])]),
          );
        break;
      case "pending":
        query = query.where("users.approved", "=", false);
        break;
      case "disabled":
        query = query.where("users.disabled_at", "is not", null);
        break;
      case "silenced":
        query = query.where("accounts.silenced_at", "is not", null);
        break;
      case "suspended":
        query = query.where("accounts.suspended_at", "is not", null);
        break;
      case "sensitized":
        query = query.where("accounts.sensitized_at", "is not", null);
        break;
    }
  }
  if (filter.username) {
    query = query.where(sql<boolean>`lower(accounts.username) LIKE ${`${likeEscape(filter.username)}%`} ESCAPE '\\'`);
  }
  if (filter.displayName) {
    query = query.where(sql<boolean>`lower(accounts.display_name) LIKE ${`%${likeEscape(filter.displayName)}%`} ESCAPE '\\'`);
  }
  if (filter.byDomain) query = query.where("accounts.domain", "=", filter.byDomain.toLowerCase());
  if (filter.email) query = query.where(sql<boolean>`users.email LIKE ${`%${likeEscape(filter.email)}%`} ESCAPE '\\'`);
  if (filter.ip) {
    const ip = filter.ip;
    query = query.where(
      "accounts.id",
      "in",
      db
        .selectFrom("sessions")
        .select("account_id")
        .where("ip", "=", ip)
        .where("account_id", "is not", null)
        .$narrowType<{ account_id: string }>(),
    );
  }
  if (filter.roleIds && filter.roleIds.length > 0) {
    query = query.where("accounts.id", "in", db.selectFrom("actor_roles").select("actor_id").where("role_id", "in", filter.roleIds));
  }
  if (filter.staff) {
    query = query.where(
      "accounts.id",
      "in",
      db
        .selectFrom("actor_roles")
        .innerJoin("role_permissions", "role_permissions.role_id", "actor_roles.role_id")
        .select("actor_roles.actor_id"),
    );
  }
  const rows = await fetchIdPage(query, "accounts.id", page);
  return rows.map(toRow);
}

/** The addresses an account's sessions came from, most recently used first. */
export async function ipsOfAccount(db: Kysely<Database>, accountId: string): Promise<{ ip: string; usedAt: string }[]> {
  const rows = await db
    .selectFrom("sessions")
    .select(["ip", "created_at", "last_used_at"])
    .where("account_id", "=", accountId)
    .where("ip", "is not", null)
    .execute();
  const latest = new Map<string, string>();
  for (const row of rows) {
    if (row.ip === null) continue;
    const used = row.last_used_at ?? row.created_at;
    const seen = latest.get(row.ip);
    if (!seen || seen < used) latest.set(row.ip, used);
  }
  return [...latest].map(([ip, usedAt]) => ({ ip, usedAt })).sort((a, b) => (a.usedAt < b.usedAt ? 1 : -1));
}

export async function setAccountModeration(
  db: Kysely<Database>,
  accountId: string,
  changes: { suspendedAt?: string | null; silencedAt?: string | null; sensitizedAt?: string | null; updatedAt: string },
): Promise<void> {
  await db
    .updateTable("accounts")
    .set({
      ...(changes.suspendedAt !== undefined && { suspended_at: changes.suspendedAt }),
      ...(changes.silencedAt !== undefined && { silenced_at: changes.silencedAt }),
      ...(changes.sensitizedAt !== undefined && { sensitized_at: changes.sensitizedAt }),
      updated_at: changes.updatedAt,
    })
    .where("id", "=", accountId)
    .execute();
}

export async function setPasswordHash(db: Kysely<Database>, accountId: string, passwordHash: string, now: string): Promise<void> {
  await db.updateTable("users").set({ password_hash: passwordHash, updated_at: now }).where("account_id", "=", accountId).execute();
}

/** Revokes every live session of an account; returns how many. */
export async function revokeAllSessionsOfAccount(db: Kysely<Database>, accountId: string, at: string): Promise<number> {
  const result = await db
    .updateTable("sessions")
    .set({ revoked_at: at })
    .where("account_id", "=", accountId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes an account; its user, roles and sessions go with it. */
export async function deleteAccountRow(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.deleteFrom("sessions").where("account_id", "=", accountId).execute();
  await db.deleteFrom("actor_roles").where("actor_id", "=", accountId).execute();
  await db.deleteFrom("users").where("account_id", "=", accountId).execute();
  await db.deleteFrom("accounts").where("id", "=", accountId).execute();
}
