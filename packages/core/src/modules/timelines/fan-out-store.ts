import type { Kysely, QueryCreator } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { Database, DbBool } from "../../ports/storage-schema.js";
import { literalLimit } from "../../platform/storage/literal-limit.js";
import { followerLocality } from "../relationships/relationships-store.js";

/** What fan-out needs to know of a status. */
export interface FanOutStatus {
  readonly id: string;
  readonly accountId: string;
  readonly authorDomain: string | null;
  readonly visibility: string;
  readonly inReplyToAccountId: string | null;
  readonly reblogOfId: string | null;
  /** The author of the boosted status, for a boost. */
  readonly reblogAuthorId: string | null;
  readonly reblogAuthorDomain: string | null;
  readonly createdAt: string;
}

export async function loadFanOutStatus(db: Kysely<Database>, statusId: string): Promise<FanOutStatus | null> {
  const row = await db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .leftJoin("statuses as r", "r.id", "s.reblog_of_id")
    .leftJoin("accounts as ra", "ra.id", "r.account_id")
    .select([
      "s.id",
      "s.account_id",
      "a.domain",
      "s.visibility",
      "s.in_reply_to_account_id",
      "s.reblog_of_id",
      "r.account_id as reblog_author_id",
      "ra.domain as reblog_author_domain",
      "s.created_at",
    ])
    .where("s.id", "=", statusId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    authorDomain: row.domain,
    visibility: row.visibility,
    inReplyToAccountId: row.in_reply_to_account_id,
    reblogOfId: row.reblog_of_id,
    reblogAuthorId: row.reblog_author_id ?? null,
    reblogAuthorDomain: row.reblog_author_domain ?? null,
    createdAt: row.created_at,
  };
}

/** A local follower of an author, as fan-out sees it. */
export interface FollowerReader {
  readonly accountId: string;
  readonly showReblogs: boolean;
  /** Whether the follower asked to be told of the author's statuses. */
  readonly notify: boolean;
}

/** Local followers of `authorId` after `afterAccountId`, in account id order (the followers' index, migration 0022). */
export async function localFollowersPage(
  db: Kysely<Database>,
  authorId: string,
  afterAccountId: string | null,
  limit: number,
): Promise<FollowerReader[]> {
  const rows = await selectLocalFollowers(db, { authorId, after: afterAccountId ?? undefined, limit });
  return rows.map(followerReaderOf);
}

/** A follower as `localFollowersQuery` selects it. */
export interface LocalFollowerRow {
  readonly account_id: string;
  readonly show_reblogs: DbBool;
  readonly notify: DbBool;
}

export function followerReaderOf(row: LocalFollowerRow): FollowerReader {
  return { accountId: row.account_id, showReblogs: readFlag(row.show_reblogs), notify: readFlag(row.notify) };
}

/**
 * The query of `localFollowersPage`, on a database or on a `with` of one (a
 * status's insert reads them in its own statement where the engine can).
 */
export function localFollowersQuery(
  db: QueryCreator<Database>,
  args: { readonly authorId: string; readonly after?: string | undefined; readonly limit: number },
) {
  let query = db
    .selectFrom("follows as f")
    .select(["f.account_id", "f.show_reblogs", "f.notify"])
    .where("f.target_account_id", "=", args.authorId)
    .where(followerLocality("f", true));
  if (args.after !== undefined) query = query.where("f.account_id", ">", args.after);
  return query.orderBy("f.account_id").limit(literalLimit(args.limit));
}

// Fan-out runs the statements of this file for every status: they are built and compiled once per shape.
const selectLocalFollowers = compiledOnce((db, args: { authorId: string; after: string | undefined; limit: number }) =>
  localFollowersQuery(db, args),
);

/** Local accounts mentioned in a status. */
export async function mentionedLocalAccounts(db: Kysely<Database>, statusId: string): Promise<{ accountId: string; silent: boolean }[]> {
  const rows = await db
    .selectFrom("mentions as m")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .select(["m.account_id", "m.silent"])
    .where("m.status_id", "=", statusId)
    .where("a.domain", "is", null)
    .execute();
  return rows.map((row) => ({ accountId: row.account_id, silent: readFlag(row.silent) }));
}

/** Of `readerIds`, those who follow `targetId`. */
export async function readersFollowing(db: Kysely<Database>, readerIds: readonly string[], targetId: string): Promise<Set<string>> {
  if (readerIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("follows")
    .select("account_id")
    .where("target_account_id", "=", targetId)
    .where("account_id", "in", readerIds)
    .execute();
  return new Set(rows.map((row) => row.account_id));
}

/**
 * Of `readerIds`, those who must not see statuses of `authorIds`: they block or
 * mute one of them (an unexpired mute), block one's domain, or are blocked by
 * one of them.
 */
export async function readersHiding(
  db: Kysely<Database>,
  readerIds: readonly string[],
  authorIds: readonly string[],
  domains: readonly string[],
  now: string,
): Promise<Set<string>> {
  if (readerIds.length === 0 || authorIds.length === 0) return new Set();
  const rows = await selectReadersHiding(db, { readerIds, authorIds, domains, now });
  return new Set(rows.map((row) => row.reader));
}

const selectReadersHiding = compiledOnce(
  (db, args: { readerIds: readonly string[]; authorIds: readonly string[]; domains: readonly string[]; now: string }) => {
    const { readerIds, authorIds, domains, now } = args;
    // One statement for the four reasons: fan-out runs this for every status, so round trips count.
    const hiding = db
      .selectFrom("blocks")
      .select("account_id as reader")
      .where("account_id", "in", readerIds)
      .where("target_account_id", "in", authorIds)
      .unionAll(
        db
          .selectFrom("blocks")
          .select("target_account_id as reader")
          .where("account_id", "in", authorIds)
          .where("target_account_id", "in", readerIds),
      )
      .unionAll(
        db
          .selectFrom("mutes")
          .select("account_id as reader")
          .where("account_id", "in", readerIds)
          .where("target_account_id", "in", authorIds)
          .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)])),
      );
    return domains.length === 0
      ? hiding
      : hiding.unionAll(
          db
            .selectFrom("account_domain_blocks")
            .select("account_id as reader")
            .where("account_id", "in", readerIds)
            .where("domain", "in", domains),
        );
  },
);

/** Recent statuses of `authorId` that a new follower may see in home: not direct, newest first. */
export async function recentStatusesForFollower(
  db: Kysely<Database>,
  authorId: string,
  limit: number,
): Promise<{ id: string; reblogOfId: string | null; inReplyToAccountId: string | null; createdAt: string }[]> {
  const rows = await db
    .selectFrom("statuses")
    .select(["id", "reblog_of_id", "in_reply_to_account_id", "created_at"])
    .where("account_id", "=", authorId)
    .where("visibility", "in", ["public", "unlisted", "private"])
    .orderBy("id", "desc")
    .limit(literalLimit(limit))
    .execute();
  return rows.map((row) => ({
    id: row.id,
    reblogOfId: row.reblog_of_id,
    inReplyToAccountId: row.in_reply_to_account_id,
    createdAt: row.created_at,
  }));
}

/** Lists of `ownerIds` that hold `authorId`, with their reply policy. */
export async function listsHolding(
  db: Kysely<Database>,
  ownerIds: readonly string[],
  authorId: string,
): Promise<{ listId: string; ownerId: string; repliesPolicy: string; exclusive: boolean }[]> {
  if (ownerIds.length === 0) return [];
  const rows = await selectListsHolding(db, { ownerIds, authorId });
  return rows.map((row) => ({
    listId: row.id,
    ownerId: row.account_id,
    repliesPolicy: row.replies_policy,
    exclusive: readFlag(row.exclusive),
  }));
}

const selectListsHolding = compiledOnce((db, args: { ownerIds: readonly string[]; authorId: string }) =>
  db
    .selectFrom("list_accounts as la")
    .innerJoin("lists as l", "l.id", "la.list_id")
    .select(["l.id", "l.account_id", "l.replies_policy", "l.exclusive"])
    .where("la.account_id", "=", args.authorId)
    .where("l.account_id", "in", args.ownerIds),
);

/** Of `listIds`, those that hold `accountId`. */
export async function listsWithMember(db: Kysely<Database>, listIds: readonly string[], accountId: string): Promise<Set<string>> {
  if (listIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("list_accounts")
    .select("list_id")
    .where("list_id", "in", listIds)
    .where("account_id", "=", accountId)
    .execute();
  return new Set(rows.map((row) => row.list_id));
}

/** Of `targetIds`, those `readerId` follows. */
export async function followedAmong(db: Kysely<Database>, readerId: string, targetIds: readonly string[]): Promise<Set<string>> {
  if (targetIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("follows")
    .select("target_account_id")
    .where("account_id", "=", readerId)
    .where("target_account_id", "in", targetIds)
    .execute();
  return new Set(rows.map((row) => row.target_account_id));
}
