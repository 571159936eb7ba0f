import { type Kysely, sql } from "kysely";
import type { Database, StatusRow } from "../../ports/storage-schema.js";
import type { PageRequest } from "../../platform/http/pagination.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";

/**
 * The SQL of quote posts: a quote's state and stamp, a status's policy and quotes count, the quotes of a status. States
 * and policies are the words quote-policy.ts defines.
 */

/** Moves `quotes_count` by `delta`, never below zero. */
export async function bumpQuotesCount(db: Kysely<Database>, statusId: string, delta: number): Promise<void> {
  const count = sql.ref("quotes_count");
  await db
    .updateTable("statuses")
    .set({ quotes_count: sql<number>`case when ${count} + ${delta} < 0 then 0 else ${count} + ${delta} end` })
    .where("id", "=", statusId)
    .execute();
}

/**
 * Sets where the quote `quotingId` of `quotedId` stands, only from one of the states in `from` (so a repeated or late
 * answer changes nothing), with the stamp that authorizes it when given. The row as it now is, or undefined when
 * nothing changed.
 */
export async function moveQuoteState(
  db: Kysely<Database>,
  quote: { readonly quotingId: string; readonly quotedId: string },
  from: readonly string[],
  to: string,
  authorization?: string | null,
): Promise<StatusRow | undefined> {
  return db
    .updateTable("statuses")
    .set({ quote_state: to, ...(authorization !== undefined && { quote_authorization: authorization }) })
    .where("id", "=", quote.quotingId)
    .where("quote_id", "=", quote.quotedId)
    .where((eb) =>
      from.includes("accepted") ? eb.or([eb("quote_state", "in", from), eb("quote_state", "is", null)]) : eb("quote_state", "in", from),
    )
    .returningAll()
    .executeTakeFirst();
}

/** The status `quotingId` when it quotes `quotedId`. */
export async function findQuoteOf(db: Kysely<Database>, quotedId: string, quotingId: string): Promise<StatusRow | undefined> {
  return db.selectFrom("statuses").selectAll().where("id", "=", quotingId).where("quote_id", "=", quotedId).executeTakeFirst();
}

/** Statuses quoting `uri` (another server's status, not known here when they were stored), to link them once it is. */
export async function linkQuotesOf(db: Kysely<Database>, uri: string, statusId: string): Promise<void> {
  await db.updateTable("statuses").set({ quote_id: statusId }).where("quote_uri", "=", uri).where("quote_id", "is", null).execute();
}

export async function setQuotePolicy(db: Kysely<Database>, statusId: string, policy: string | null): Promise<void> {
  await db.updateTable("statuses").set({ quote_policy: policy }).where("id", "=", statusId).execute();
}

/** A page of the accepted quotes of a status, newest first, by the quoting statuses' ids. */
export async function listAcceptedQuoteIds(db: Kysely<Database>, quotedId: string, page: PageRequest): Promise<string[]> {
  const rows = await fetchIdPage(
    db
      .selectFrom("statuses")
      .select("statuses.id")
      .where("statuses.quote_id", "=", quotedId)
      .where((eb) => eb.or([eb("statuses.quote_state", "=", "accepted"), eb("statuses.quote_state", "is", null)])),
    "statuses.id",
    page,
  );
  return rows.map((row) => row.id);
}

/** The local statuses with an accepted quote of `quotedId`, and their authors: those told when it is edited. */
export async function localQuotesOf(db: Kysely<Database>, quotedId: string): Promise<{ id: string; account_id: string }[]> {
  return db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select(["statuses.id", "statuses.account_id"])
    .where("statuses.quote_id", "=", quotedId)
    .where("accounts.domain", "is", null)
    .where((eb) => eb.or([eb("statuses.quote_state", "=", "accepted"), eb("statuses.quote_state", "is", null)]))
    .execute();
}

/** The quotes of statuses about to be deleted read as such: their rows lose `quote_id` with them. */
export async function markQuotesDeleted(db: Kysely<Database>, quotedIds: readonly string[]): Promise<void> {
  if (quotedIds.length === 0) return;
  await db.updateTable("statuses").set({ quote_state: "deleted" }).where("quote_id", "in", quotedIds).execute();
}

/** Which of `authorIds` the account follows: for a policy that lets followers quote. */
export async function followedAmong(db: Kysely<Database>, accountId: string, authorIds: readonly string[]): Promise<Set<string>> {
  if (authorIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("follows")
    .select("target_account_id")
    .where("account_id", "=", accountId)
    .where("target_account_id", "in", [...new Set(authorIds)])
    .execute();
  return new Set(rows.map((row) => row.target_account_id));
}

/** Of these accounts, those following `authorId`. */
export async function followersAmong(db: Kysely<Database>, authorId: string, accountIds: readonly string[]): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("follows")
    .select("account_id")
    .where("target_account_id", "=", authorId)
    .where("account_id", "in", [...new Set(accountIds)])
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

/** The status whose quote the stamp `uri` (another server's QuoteAuthorization) authorizes. */
export async function findQuoteByAuthorization(db: Kysely<Database>, uri: string): Promise<StatusRow | undefined> {
  return db.selectFrom("statuses").selectAll().where("quote_authorization", "=", uri).executeTakeFirst();
}
