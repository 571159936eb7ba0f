import { type Kysely, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** Delivery outcomes of one remote domain. */
export interface DomainDeliveries {
  readonly domain: string;
  readonly succeeded: number;
  readonly failed: number;
  readonly lastSuccessAt: string | null;
  readonly lastFailureAt: string | null;
  readonly failureDays: number;
  readonly unreachableSince: string | null;
}

/** Accounts and statuses known from one remote domain. */
export interface DomainContent {
  readonly domain: string;
  readonly accounts: number;
  readonly posts: number;
}

function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

function deliveriesOf(row: {
  domain: string;
  succeeded: number | string;
  failed: number | string;
  last_success_at: unknown;
  last_failure_at: unknown;
  failure_days: number | string;
  unreachable_since: unknown;
}): DomainDeliveries {
  return {
    domain: row.domain,
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    lastSuccessAt: iso(row.last_success_at),
    lastFailureAt: iso(row.last_failure_at),
    failureDays: Number(row.failure_days),
    unreachableSince: iso(row.unreachable_since),
  };
}

const DELIVERY_COLUMNS = [
  "domain",
  "succeeded",
  "failed",
  "last_success_at",
  "last_failure_at",
  "failure_days",
  "unreachable_since",
] as const;

/**
 * Deliveries reached these domains (domain → how many): counted, and their
 * failure days and unreachable marks cleared, in one statement.
 */
export async function recordDeliverySuccesses(db: Kysely<Database>, successes: ReadonlyMap<string, number>, now: Date): Promise<void> {
  if (successes.size === 0) return;
  const at = now.toISOString();
  const rows = [...successes].map(([domain, succeeded]) => ({
    domain,
    succeeded,
    last_success_at: at,
    last_failure_at: null,
    last_failure_day: null,
    unreachable_since: null,
  }));
  await db
    .insertInto("federation_domain_deliveries")
    .values(rows)
    .onConflict((oc) =>
      oc.column("domain").doUpdateSet({
        succeeded: sql`federation_domain_deliveries.succeeded + excluded.succeeded`,
        last_success_at: at,
        failure_days: 0,
        last_failure_day: null,
        unreachable_since: null,
      }),
    )
    .execute();
}

/**
 * A delivery to the domain failed: counted; the first failure of a UTC day
 * adds a failure day, and `unreachableAfterDays` of them mark the domain
 * unreachable. Returns the domain's state afterwards.
 */
export async function recordDeliveryFailure(
  db: Kysely<Database>,
  domain: string,
  now: Date,
  unreachableAfterDays: number,
): Promise<DomainDeliveries> {
  const at = now.toISOString();
  const day = at.slice(0, 10);
  await db
    .insertInto("federation_domain_deliveries")
    .values({
      domain,
      failed: 1,
      last_failure_at: at,
      last_failure_day: day,
      failure_days: 1,
      last_success_at: null,
      unreachable_since: null,
    })
    .onConflict((oc) =>
      oc.column("domain").doUpdateSet({
        failed: sql`federation_domain_deliveries.failed + 1`,
        last_failure_at: at,
        failure_days: sql`case when federation_domain_deliveries.last_failure_day = ${day} then federation_domain_deliveries.failure_days else federation_domain_deliveries.failure_days + 1 end`,
        last_failure_day: day,
      }),
    )
    .execute();
  await db
    .updateTable("federation_domain_deliveries")
    .set({ unreachable_since: at })
    .where("domain", "=", domain)
    .where("unreachable_since", "is", null)
    .where("failure_days", ">=", unreachableAfterDays)
    .execute();
  const row = await db
    .selectFrom("federation_domain_deliveries")
    .select(DELIVERY_COLUMNS)
    .where("domain", "=", domain)
    .executeTakeFirstOrThrow();
  return deliveriesOf(row);
}

/**
 * Removes the delivery state of domains nothing was delivered to, or tried,
 * since `before` (their unreachable marks with it); returns how many.
 */
export async function pruneDomainDeliveries(db: Kysely<Database>, before: Date): Promise<number> {
  const at = before.toISOString();
  const result = await db
    .deleteFrom("federation_domain_deliveries")
    .where((eb) =>
      eb.and([
        eb.or([eb("last_success_at", "is", null), eb("last_success_at", "<", at)]),
        eb.or([eb("last_failure_at", "is", null), eb("last_failure_at", "<", at)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findDomainDeliveries(db: Kysely<Database>, domain: string): Promise<DomainDeliveries | null> {
  const row = await db.selectFrom("federation_domain_deliveries").select(DELIVERY_COLUMNS).where("domain", "=", domain).executeTakeFirst();
  return row ? deliveriesOf(row) : null;
}

/** Delivery outcomes of the given domains, or of every domain delivered to when `domains` is undefined. */
export async function listDomainDeliveries(db: Kysely<Database>, domains?: readonly string[]): Promise<DomainDeliveries[]> {
  if (domains?.length === 0) return [];
  let query = db.selectFrom("federation_domain_deliveries").select(DELIVERY_COLUMNS).orderBy("domain");
  if (domains) query = query.where("domain", "in", domains);
  return (await query.execute()).map(deliveriesOf);
}

/** Domains marked unreachable, longest first. */
export async function listUnreachableDomains(db: Kysely<Database>): Promise<DomainDeliveries[]> {
  const rows = await db
    .selectFrom("federation_domain_deliveries")
    .select(DELIVERY_COLUMNS)
    .where("unreachable_since", "is not", null)
    .orderBy("unreachable_since")
    .orderBy("domain")
    .execute();
  return rows.map(deliveriesOf);
}

/** Remote domains with known accounts, most accounts first, with their account and status counts. */
export async function listConnectedDomains(
  db: Kysely<Database>,
  page: { readonly limit: number; readonly offset: number },
): Promise<{ readonly rows: DomainContent[]; readonly total: number }> {
  const accounts = await db
    .selectFrom("accounts")
    .select(["domain", (eb) => eb.fn.countAll<number | string>().as("accounts")])
    .where("domain", "is not", null)
    .groupBy("domain")
    .orderBy("accounts", "desc")
    .orderBy("domain")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const totalRow = await db
    .selectFrom("accounts")
    .select((eb) => eb.fn.count<number | string>("domain").distinct().as("total"))
    .where("domain", "is not", null)
    .executeTakeFirst();
  const domains = accounts.map((row) => row.domain).filter((domain): domain is string => domain !== null);
  const posts =
    domains.length === 0
      ? []
      : await db
          .selectFrom("statuses")
          .innerJoin("accounts", "accounts.id", "statuses.account_id")
          .select(["accounts.domain", (eb) => eb.fn.countAll<number | string>().as("posts")])
          .where("accounts.domain", "in", domains)
          .groupBy("accounts.domain")
          .execute();
  const postsBy = new Map(posts.map((row) => [row.domain, Number(row.posts)]));
  return {
    rows: domains.map((domain, index) => ({ domain, accounts: Number(accounts[index]?.accounts ?? 0), posts: postsBy.get(domain) ?? 0 })),
    total: Number(totalRow?.total ?? 0),
  };
}

/** Incoming activities counted in memory, of one domain in one minute (ISO), not yet written. */
export interface InboxArrivals {
  readonly domain: string;
  readonly minute: string;
  readonly received: number;
}

/** Adds counted incoming activities to their domains' minutes, in one statement. */
export async function recordInboxArrivals(db: Kysely<Database>, arrivals: readonly InboxArrivals[]): Promise<void> {
  if (arrivals.length === 0) return;
  await db
    .insertInto("federation_inbox_minutes")
    .values(arrivals.map(({ domain, minute, received }) => ({ domain, minute, received })))
    .onConflict((oc) =>
      oc.columns(["domain", "minute"]).doUpdateSet({ received: sql`federation_inbox_minutes.received + excluded.received` }),
    )
    .execute();
}

/** Forgets minutes before `before` (outside every window asked for). */
export async function pruneInboxMinutes(db: Kysely<Database>, before: Date): Promise<void> {
  await db.deleteFrom("federation_inbox_minutes").where("minute", "<", before.toISOString()).execute();
}

/** Activities received per minute since `since`, of one domain or all, oldest minute first; minutes without any are absent. */
export async function listInboxMinutes(
  db: Kysely<Database>,
  since: Date,
  domain: string | null,
): Promise<{ readonly minute: string; readonly received: number }[]> {
  let query = db
    .selectFrom("federation_inbox_minutes")
    .select(["minute", (eb) => eb.fn.sum<number | string>("received").as("received")])
    .where("minute", ">=", since.toISOString())
    .groupBy("minute")
    .orderBy("minute");
  if (domain !== null) query = query.where("domain", "=", domain);
  return (await query.execute()).map((row) => ({ minute: iso(row.minute) ?? "", received: Number(row.received) }));
}

/** Activities received per domain since `since`, most first. */
export async function listInboxDomains(
  db: Kysely<Database>,
  since: Date,
  limit: number,
): Promise<{ readonly domain: string; readonly received: number }[]> {
  const rows = await db
    .selectFrom("federation_inbox_minutes")
    .select(["domain", (eb) => eb.fn.sum<number | string>("received").as("received")])
    .where("minute", ">=", since.toISOString())
    .groupBy("domain")
    .orderBy("received", "desc")
    .orderBy("domain")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ domain: row.domain, received: Number(row.received) }));
}

/** Clears the unreachable marks and failure days of those of `domains` that are marked; returns how many were. */
export async function clearUnreachableDomains(db: Kysely<Database>, domains: readonly string[]): Promise<number> {
  if (domains.length === 0) return 0;
  const result = await db
    .updateTable("federation_domain_deliveries")
    .set({ unreachable_since: null, failure_days: 0, last_failure_day: null })
    .where("domain", "in", domains)
    .where("unreachable_since", "is not", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
