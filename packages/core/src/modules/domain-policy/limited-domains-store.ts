import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** Remote accounts of `domain` or one of its subdomains (a block covers them), on any port. */
function onDomain(column: RawBuilder<unknown>, domain: string): RawBuilder<boolean> {
  return sql<boolean>`(${column} = ${domain} or ${column} like ${`%.${domain}`} or ${column} like ${`${domain}:%`} or ${column} like ${`%.${domain}:%`})`;
}

/**
 * A condition true when the account whose domain is in `domainColumn` is not
 * on a domain limited or suspended by an administrator, or is followed by
 * `viewerId` (LIMIT hides an account from those who do not follow it).
 * Local accounts (domain null) always pass. A NOOP block on a subdomain of
 * a limited domain does not lift the limit here (the policy service does).
 */
export function notFromLimitedDomain(domainColumn: string, accountColumn: string, viewerId: string | null): RawBuilder<boolean> {
  const domain = sql.ref(domainColumn);
  const limited = sql`exists (select 1 from domain_blocks db where db.severity in ('LIMIT', 'SUSPEND') and (${domain} = db.domain or ${domain} like '%.' || db.domain or ${domain} like db.domain || ':%' or ${domain} like '%.' || db.domain || ':%'))`;
  if (viewerId === null) return sql<boolean>`(${domain} is null or not ${limited})`;
  const followed = sql`${sql.ref(accountColumn)} in (select target_account_id from follows where account_id = ${viewerId})`;
  return sql<boolean>`(${domain} is null or not ${limited} or ${followed})`;
}

/** Follows and follow requests between local accounts and accounts of a domain (or its subdomains). */
export async function listFollowsWithDomain(
  db: Kysely<Database>,
  domain: string,
): Promise<{ readonly accountId: string; readonly targetAccountId: string }[]> {
  const rows = await db
    .selectFrom("follows")
    .innerJoin("accounts as follower", "follower.id", "follows.account_id")
    .innerJoin("accounts as target", "target.id", "follows.target_account_id")
    .select(["follows.account_id as accountId", "follows.target_account_id as targetAccountId"])
    .where((eb) =>
      eb.or([
        eb.and([eb("follower.domain", "is", null), onDomain(sql.ref("target.domain"), domain)]),
        eb.and([eb("target.domain", "is", null), onDomain(sql.ref("follower.domain"), domain)]),
      ]),
    )
    .execute();
  return rows;
}

export async function deleteFollowRequestsWithDomain(db: Kysely<Database>, domain: string): Promise<number> {
  const ofDomain = db
    .selectFrom("accounts")
    .select("id")
    .where(onDomain(sql.ref("accounts.domain"), domain));
  const result = await db
    .deleteFrom("follow_requests")
    .where((eb) => eb.or([eb("account_id", "in", ofDomain), eb("target_account_id", "in", ofDomain)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
