import { type Expression, type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { joinedReads } from "../../platform/storage/joined-reads.js";
import { type PageBounds, idPageQuery } from "../../platform/storage/paginate-by-id.js";
import type { Database } from "../../ports/storage-schema.js";
import {
  type PlacedVisibleStatusRow,
  type VisiblePage,
  visiblePageOf,
  visibleStatusesOn,
  visibleStatusesOnPages,
} from "../statuses/visible-statuses-store.js";

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

// Written for every status and its fan-out: built and compiled once per number of entries.
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
 * One page of a home feed, newest first (a range scan of the feed's primary key), with what rendering its statuses needs
 * to know first (visible-statuses.ts): one statement, the busiest read there is. Pages asked at the same moment are
 * read by one statement where that pays (joined-reads.ts): each client of a busy server asks for its home.
 */
export function loadHomeFeedPage(db: Kysely<Database>, accountId: string, page: PageRequest): Promise<VisiblePage> {
  return homeFeedPage(db, { accountId, page });
}

interface HomeFeedRead {
  readonly accountId: string;
  readonly page: PageRequest;
}

const homeFeedPage = joinedReads<HomeFeedRead, VisiblePage>({
  // A page is up to 40 rows (80 at most): a statement's rows stay a few thousand.
  perStatement: 16,
  // The limit and which bounds are given are the page statement's shape; the bounds' values are a row's.
  group: ({ page }) => `${page.limit}:${page.maxId === undefined}:${page.sinceId === undefined}:${page.minId === undefined}`,
  async one(db, { accountId, page }) {
    return visiblePageOf(
      await selectHomeFeedPage(db, { accountId, limit: page.limit, maxId: page.maxId, sinceId: page.sinceId, minId: page.minId }),
    );
  },
  async many(db, reads) {
    const [first] = reads;
    const given = (bound: "maxId" | "sinceId" | "minId") =>
      first?.page[bound] === undefined ? undefined : reads.map((read) => read.page[bound] ?? null);
    const rows = await selectHomeFeedPages(db, {
      accountIds: reads.map((read) => read.accountId),
      limit: first?.page.limit ?? 0,
      maxIds: given("maxId"),
      sinceIds: given("sinceId"),
      minIds: given("minId"),
    });
    const byPlace = reads.map((): PlacedVisibleStatusRow[] => []);
    for (const row of rows) byPlace[Number(row.place)]?.push(row);
    return byPlace.map(visiblePageOf);
  },
});

// Compiled once per limit and bounds given. The reader of the feed is its viewer.
const selectHomeFeedPage = compiledOnce(
  (db, page: { accountId: string; limit: number; maxId: string | undefined; sinceId: string | undefined; minId: string | undefined }) =>
    visibleStatusesOn(db, homeFeedIds(db, page.accountId, page), page.accountId),
);

/** The ids of one page of `reader`'s feed. */
function homeFeedIds(db: Kysely<Database>, reader: string | Expression<string>, page: PageBounds) {
  return idPageQuery(
    db.selectFrom("home_feed").select("home_feed.status_id as id").where("home_feed.account_id", "=", reader),
    "home_feed.status_id",
    page,
  );
}

// Each reader is a row of `asked`, numbered by its place, with its page's bounds; its page is read beside the row
// (a lateral join: only PostgreSQL joins reads, where statements are round trips).
const selectHomeFeedPages = compiledOnce(
  (
    db,
    args: {
      accountIds: readonly string[];
      limit: number;
      maxIds: readonly (string | null)[] | undefined;
      sinceIds: readonly (string | null)[] | undefined;
      minIds: readonly (string | null)[] | undefined;
    },
  ) => {
    const bound = (values: readonly (string | null)[] | undefined, column: string) =>
      values === undefined ? undefined : sql.ref<string>(`asked.${column}`);
    const asked = args.accountIds.map(
      (id, i) => sql`(${sql.lit(i)}, ${id}, ${args.maxIds?.[i] ?? null}, ${args.sinceIds?.[i] ?? null}, ${args.minIds?.[i] ?? null})`,
    );
    const ids = homeFeedIds(db, sql.ref<string>("asked.viewer_id"), {
      limit: args.limit,
      maxId: bound(args.maxIds, "max_id"),
      sinceId: bound(args.sinceIds, "since_id"),
      minId: bound(args.minIds, "min_id"),
    });
    return visibleStatusesOnPages(
      db,
      sql`(select asked.place, asked.viewer_id, feed.id from (values ${sql.join(asked)}) as asked(place, viewer_id, max_id, since_id, min_id) cross join lateral ${ids} as feed)`,
    );
  },
);

/** Removes from a feed what `authorId` wrote, and boosts of their statuses. */
export async function removeAuthorFromFeed(db: Kysely<Database>, accountId: string, authorId: string): Promise<void> {
  await db.deleteFrom("home_feed").where("account_id", "=", accountId).where("author_id", "=", authorId).execute();
  await db
    .deleteFrom("home_feed")
    .where("account_id", "=", accountId)
    .where("reblog_of_id", "in", db.selectFrom("statuses").select("id").where("account_id", "=", authorId))
    .execute();
}

/** Removes from a feed what accounts of `domain` wrote, and boosts of their statuses. */
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
export async function boostedStatusesShown(db: Kysely<Database>, accountId: string, statusIds: readonly string[]): Promise<Set<string>> {
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

/** Whether the account is this server's own (false for one that does not exist). */
export async function isLocalAccount(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("domain").where("id", "=", accountId).executeTakeFirst();
  return row !== undefined && row.domain === null;
}
