import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { followerLocality } from "../relationships/relationships-store.js";
import type { Database } from "../../ports/storage-schema.js";

/** What notifications need of a status. */
export interface NotifiedStatus {
  readonly id: string;
  readonly accountId: string;
  readonly visibility: string;
  readonly inReplyToId: string | null;
  readonly inReplyToAccountId: string | null;
  readonly reblogOfId: string | null;
  readonly reblogAuthorId: string | null;
}

export async function loadNotifiedStatus(db: Kysely<Database>, statusId: string): Promise<NotifiedStatus | null> {
  const row = await db
    .selectFrom("statuses as s")
    .leftJoin("statuses as r", "r.id", "s.reblog_of_id")
    .select([
      "s.id",
      "s.account_id",
      "s.visibility",
      "s.in_reply_to_id",
      "s.in_reply_to_account_id",
      "s.reblog_of_id",
      "r.account_id as reblog_author_id",
    ])
    .where("s.id", "=", statusId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    visibility: row.visibility,
    inReplyToId: row.in_reply_to_id,
    inReplyToAccountId: row.in_reply_to_account_id,
    reblogOfId: row.reblog_of_id,
    reblogAuthorId: row.reblog_author_id ?? null,
  };
}

// The audiences below may hold remote accounts: the notification service's rules (`recipientsReached`) keep the local
// ones, in the same statement as the refusals, so reading them here again would be a statement more for nothing.

/** Accounts mentioned (not silently) in a status. */
export async function notifiedMentions(db: Kysely<Database>, statusId: string): Promise<string[]> {
  const rows = await db.selectFrom("mentions").select(["account_id", "silent"]).where("status_id", "=", statusId).execute();
  return rows.filter((row) => !readFlag(row.silent)).map((row) => row.account_id);
}

/** Local followers who asked to be told of the author's statuses (`notify`). */
export async function subscribedFollowers(db: Kysely<Database>, authorId: string): Promise<string[]> {
  const rows = await selectSubscribedFollowers(db, { authorId });
  return rows.map((row) => row.account_id);
}

/** Statuses above a reply, nearest first, up to `depth`. */
export async function ancestorIds(db: Kysely<Database>, inReplyToId: string, depth: number): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = inReplyToId;
  while (next !== null && ids.length < depth && !ids.includes(next)) {
    ids.push(next);
    const row: { in_reply_to_id: string | null } | undefined = await db
      .selectFrom("statuses")
      .select("in_reply_to_id")
      .where("id", "=", next)
      .executeTakeFirst();
    next = row?.in_reply_to_id ?? null;
  }
  return ids;
}

/** Accounts subscribed to any of `statusIds`. */
export async function subscribersOf(db: Kysely<Database>, statusIds: readonly string[]): Promise<string[]> {
  if (statusIds.length === 0) return [];
  const rows = await db.selectFrom("status_subscriptions").select("account_id").distinct().where("status_id", "in", statusIds).execute();
  return rows.map((row) => row.account_id);
}

/** Accounts that boosted a status. */
export async function rebloggersOf(db: Kysely<Database>, statusId: string): Promise<string[]> {
  const rows = await db.selectFrom("statuses").select("account_id").distinct().where("reblog_of_id", "=", statusId).execute();
  return rows.map((row) => row.account_id);
}

/** Accounts that voted in a poll, with the poll's author. */
export async function pollAudience(db: Kysely<Database>, pollId: string): Promise<{ authorId: string | null; voters: string[] }> {
  const poll = await db.selectFrom("polls").select("account_id").where("id", "=", pollId).executeTakeFirst();
  const rows = await db.selectFrom("poll_votes").select("account_id").distinct().where("poll_id", "=", pollId).execute();
  return {
    authorId: poll?.account_id ?? null,
    voters: rows.map((row) => row.account_id),
  };
}

/** Of `readerIds`, those who may see a status: anyone for public and unlisted, followers and the mentioned for private, the mentioned for direct. */
export async function readersWhoMaySee(db: Kysely<Database>, status: NotifiedStatus, readerIds: readonly string[]): Promise<Set<string>> {
  if (readerIds.length === 0) return new Set();
  if (status.visibility === "public" || status.visibility === "unlisted") return new Set(readerIds);
  const mentioned = await db
    .selectFrom("mentions")
    .select("account_id")
    .where("status_id", "=", status.id)
    .where("account_id", "in", readerIds)
    .execute();
  const allowed = new Set(mentioned.map((row) => row.account_id));
  allowed.add(status.accountId);
  if (status.visibility === "private") {
    const followers = await db
      .selectFrom("follows")
      .select("account_id")
      .where("target_account_id", "=", status.accountId)
      .where("account_id", "in", readerIds)
      .execute();
    for (const row of followers) allowed.add(row.account_id);
  }
  return new Set(readerIds.filter((id) => allowed.has(id)));
}

// Read for every new status: built and compiled once. The flag is written into the text: bound as a value, PostgreSQL's
// generic plan took half the follows to ask for notifications (a few do), looked dearer, and every run was planned anew.
const selectSubscribedFollowers = compiledOnce((db, args: { authorId: string }) =>
  db
    .selectFrom("follows")
    .select("follows.account_id")
    .where("follows.target_account_id", "=", args.authorId)
    .where(sql<boolean>`${sql.ref("follows.notify")} = true`)
    .where(followerLocality("follows", true)),
);
