import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { compiledOnce } from "../compiled-once.js";
import { idPageQuery } from "../paginate-by-id.js";
import type { Database } from "../schema.js";
import { type VisiblePage, visiblePageOf, visiblePostsOn } from "./visible-posts.js";

/** One entry of someone's home feed. */
export interface HomeFeedEntry {
  readonly accountId: string;
  readonly statusId: string;
  /** Who wrote the entry: the booster for a boost. */
  readonly authorId: string;
  readonly reblogOfId: string | null;
  readonly createdAt: string;
}

/** Adds entries; an entry already there is left as it is. */
export async function insertHomeFeedEntries(db: Kysely<Database>, entries: readonly HomeFeedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await insertEntries(db, {
    accountIds: entries.map((entry) => entry.accountId),
    statusIds: entries.map((entry) => entry.statusId),
    authorIds: entries.map((entry) => entry.authorId),
    reblogOfIds: entries.map((entry) => entry.reblogOfId),
    createdAts: entries.map((entry) => entry.createdAt),
  });
}

// Written for every post and its fan-out: built and compiled once per number of entries.
const insertEntries = compiledOnce(
  (
    db,
    args: {
      accountIds: readonly string[];
      statusIds: readonly string[];
      authorIds: readonly string[];
      reblogOfIds: readonly (string | null)[];
      createdAts: readonly string[];
    },
  ) =>
    db
      .insertInto("home_feed")
      .values(
        args.accountIds.map((accountId, i) => ({
          account_id: accountId,
          status_id: args.statusIds[i] ?? "",
          author_id: args.authorIds[i] ?? "",
          reblog_of_id: args.reblogOfIds[i] ?? null,
          created_at: args.createdAts[i] ?? "",
        })),
      )
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing()),
);

/** Of `accountIds`, those whose feed already shows `statusId`, itself or boosted. */
export async function readersAlreadyShowing(db: Kysely<Database>, accountIds: readonly string[], statusId: string): Promise<Set<string>> {
  if (accountIds.length === 0) return new Set();
  const [direct, boosted] = await Promise.all([
    db.selectFrom("home_feed").select("account_id").where("status_id", "=", statusId).where("account_id", "in", accountIds).execute(),
    db.selectFrom("home_feed").select("account_id").where("reblog_of_id", "=", statusId).where("account_id", "in", accountIds).execute(),
  ]);
  return new Set([...direct, ...boosted].map((row) => row.account_id));
}

/**
 * One page of a home feed, newest first (a range scan of the feed's primary key), with what rendering its posts needs
 * to know first (visible-posts.ts): one statement, the busiest read there is.
 */
export async function loadHomeFeedPage(db: Kysely<Database>, accountId: string, page: PageRequest): Promise<VisiblePage> {
  return visiblePageOf(
    await selectHomeFeedPage(db, { accountId, limit: page.limit, maxId: page.maxId, sinceId: page.sinceId, minId: page.minId }),
  );
}

// Compiled once per limit and bounds given. The reader of the feed is its viewer.
const selectHomeFeedPage = compiledOnce(
  (db, page: { accountId: string; limit: number; maxId: string | undefined; sinceId: string | undefined; minId: string | undefined }) =>
    visiblePostsOn(
      db,
      idPageQuery(
        db.selectFrom("home_feed").select("home_feed.status_id as id").where("home_feed.account_id", "=", page.accountId),
        "home_feed.status_id",
        page,
      ),
      page.accountId,
    ),
);

/** Removes from a feed what `authorId` wrote, and boosts of their posts. */
export async function removeAuthorFromFeed(db: Kysely<Database>, accountId: string, authorId: string): Promise<void> {
  await db.deleteFrom("home_feed").where("account_id", "=", accountId).where("author_id", "=", authorId).execute();
  await db
    .deleteFrom("home_feed")
    .where("account_id", "=", accountId)
    .where("reblog_of_id", "in", db.selectFrom("statuses").select("id").where("account_id", "=", authorId))
    .execute();
}

/** Removes from a feed what accounts of `domain` wrote, and boosts of their posts. */
export async function removeDomainFromFeed(db: Kysely<Database>, accountId: string, domain: string): Promise<void> {
  const ofDomain = db.selectFrom("accounts").select("id").where("domain", "=", domain);
  await db.deleteFrom("home_feed").where("account_id", "=", accountId).where("author_id", "in", ofDomain).execute();
  await db
    .deleteFrom("home_feed")
    .where("account_id", "=", accountId)
    .where("reblog_of_id", "in", db.selectFrom("statuses").select("id").where("account_id", "in", ofDomain))
    .execute();
}

/** Of `statusIds`, those one reader's feed shows, themselves or boosted. */
export async function boostedPostsShown(db: Kysely<Database>, accountId: string, statusIds: readonly string[]): Promise<Set<string>> {
  if (statusIds.length === 0) return new Set();
  const [direct, boosted] = await Promise.all([
    db.selectFrom("home_feed").select("status_id as id").where("account_id", "=", accountId).where("status_id", "in", statusIds).execute(),
    db
      .selectFrom("home_feed")
      .select("reblog_of_id as id")
      .where("reblog_of_id", "in", statusIds)
      .where("account_id", "=", accountId)
      .execute(),
  ]);
  return new Set([...direct, ...boosted].map((row) => row.id).filter((id): id is string => id !== null));
}

/** Readers whose feed shows `statusId` itself (the status index). */
export async function readersShowing(db: Kysely<Database>, statusId: string): Promise<string[]> {
  const rows = await db.selectFrom("home_feed").select("account_id").where("status_id", "=", statusId).execute();
  return rows.map((row) => row.account_id);
}
