import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface EmailDomainAllowRow {
  readonly domain: string;
  readonly createdAt: string;
}

/** One page of the allowlist in domain order, after `after` when given. */
export async function listEmailDomainAllows(
  db: Kysely<Database>,
  page: { readonly after?: string; readonly limit: number },
): Promise<EmailDomainAllowRow[]> {
  let query = db.selectFrom("email_domain_allows").select(["domain", "created_at"]);
  if (page.after !== undefined) query = query.where("domain", ">", page.after);
  const rows = await query.orderBy("domain", "asc").limit(page.limit).execute();
  return rows.map((row) => ({ domain: row.domain, createdAt: row.created_at }));
}

export async function findEmailDomainAllow(db: Kysely<Database>, domain: string): Promise<EmailDomainAllowRow | null> {
  const row = await db.selectFrom("email_domain_allows").select(["domain", "created_at"]).where("domain", "=", domain).executeTakeFirst();
  return row ? { domain: row.domain, createdAt: row.created_at } : null;
}

/** Adds a domain; false when it was already there (the insert is a no-op then, so concurrent adds cannot fail on the key). */
export async function insertEmailDomainAllow(db: Kysely<Database>, domain: string, createdAt: string): Promise<boolean> {
  const result = await db
    .insertInto("email_domain_allows")
    .values({ domain, created_at: createdAt })
    .onConflict((oc) => oc.column("domain").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Removes a domain; false when it was not there. */
export async function deleteEmailDomainAllow(db: Kysely<Database>, domain: string): Promise<boolean> {
  const result = await db.deleteFrom("email_domain_allows").where("domain", "=", domain).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Whether any of these domains is on the allowlist. */
export async function anyEmailDomainAllowed(db: Kysely<Database>, domains: readonly string[]): Promise<boolean> {
  if (domains.length === 0) return false;
  const row = await db
    .selectFrom("email_domain_allows")
    .select("domain")
    .where("domain", "in", [...domains])
    .executeTakeFirst();
  return row !== undefined;
}
