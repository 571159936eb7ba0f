import { type Compilable, type Expression, type Kysely, type QueryCreator, type RawBuilder, type SqlBool, sql } from "kysely";
import { type Viewer, type VisibilityOptions, visibleTo } from "./visibility-store.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { existsFence } from "../../platform/storage/exists-fence.js";
import { joinedReads } from "../../platform/storage/joined-reads.js";
import type { Database, StatusRow } from "../../ports/storage-schema.js";
import { ACCOUNT_COUNTERS, type AccountCounter, type AccountVersionRow } from "../accounts/accounts-store.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";

/** What of a status changes without a new version (migration 0020): its counters. */
export type StatusCounter = "replies_count" | "reblogs_count" | "favourites_count";
export const STATUS_COUNTERS: readonly StatusCounter[] = ["replies_count", "reblogs_count", "favourites_count"];
export type StatusVersionRow = Pick<StatusRow, "id" | "version" | StatusCounter>;

/** What the viewer did to a status: favourited, boosted, bookmarked, pinned it, muted its conversation. */
export interface StatusMarks {
  readonly favourited: boolean;
  readonly reblogged: boolean;
  readonly bookmarked: boolean;
  readonly pinned: boolean;
  readonly muted: boolean;
}

/** A status's version and counters, and its author's: what tells whether the kept rows of both are current. */
export interface StatusVersions {
  readonly post: StatusVersionRow;
  readonly author: AccountVersionRow;
}

/**
 * A post the viewer may see, as much as a renderer needs to know before reading more: the versions of the status and
 * its author, the same of the post it boosts, and the viewer's marks.
 */
export interface VisibleStatus extends StatusVersions {
  /** For a boost, the boosted status when the viewer may see it too; null otherwise (a boost without it is not shown). */
  readonly boosted: StatusVersions | null;
  /** The viewer's marks of the status shown (the boosted status of a boost); null for a guest. */
  readonly marks: StatusMarks | null;
}

/** A page of ids read from a list (a home feed), and those of its statuses the viewer may see. */
export interface VisiblePage {
  /** Every id of the page, newest first, seen or not: a page's `Link` header pages by these. */
  readonly ids: string[];
  readonly posts: VisibleStatus[];
}

/**
 * The statuses among `ids` the viewer may see (null: a guest), in no particular order. Reads asked at the same moment
 * are answered by one statement where that pays (joined-reads.ts): every post a server shows is read here.
 */
export function loadVisiblePosts(db: Kysely<Database>, ids: readonly string[], viewerId: string | null): Promise<VisibleStatus[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return visibleStatusesByIds(db, { ids, viewerId });
}

interface VisibleStatusesRead {
  readonly ids: readonly string[];
  readonly viewerId: string | null;
}

const visibleStatusesByIds = joinedReads<VisibleStatusesRead, VisibleStatus[]>({
  perStatement: 16,
  // A guest's rules name no viewer: guests' reads are one read of all their ids.
  group: ({ viewerId }) => (viewerId === null ? "guest" : "viewer"),
  async one(db, { ids, viewerId }) {
    return visibleStatusesOf(await selectByIds(db, { ids, viewerId }));
  },
  async many(db, reads) {
    if (reads[0]?.viewerId === null) {
      const posts = await selectByIds(db, { ids: [...new Set(reads.flatMap((read) => read.ids))], viewerId: null });
      const byId = new Map(visibleStatusesOf(posts).map((post) => [post.post.id, post]));
      return reads.map((read) => read.ids.flatMap((id) => byId.get(id) ?? []));
    }
    const asked = reads.flatMap((read, place) => read.ids.map((id) => ({ place, viewer_id: read.viewerId, id })));
    const byPlace = reads.map((): PlacedVisibleStatusRow[] => []);
    for (const row of await selectByIdsForViewers(db, { asked: JSON.stringify(asked) })) byPlace[Number(row.place)]?.push(row);
    return byPlace.map(visibleStatusesOf);
  },
});

// The page's ids are bound once, as the rows of the statement's `page` table.
const selectByIds = compiledOnce((db, args: { ids: readonly string[]; viewerId: string | null }) =>
  visibleStatusesOn(db, sql<{ id: string }>`(values ${sql.join(args.ids.map((id) => sql`(${id})`))})`, args.viewerId),
);

// Every read's ids with its place and viewer, as one JSON parameter: one shape whatever the reads' lengths (only
// PostgreSQL joins reads, see `StorageCapabilities.serverRoundTrips`).
const selectByIdsForViewers = compiledOnce((db, args: { asked: string }) =>
  visibleStatusesOnPages(
    db,
    sql`(select asked.place, asked.viewer_id, asked.id from json_to_recordset(${args.asked}::json) as asked(place integer, viewer_id text, id text))`,
  ),
);

/** A part of a row of `visibleStatusesOn`: a status's columns, each null where the part is not there. */
type StatusColumns<P extends string> = { readonly [C in `${P}id` | `${P}version` | `${P}${StatusCounter}`]: unknown };
/** An account's columns in a row of `visibleStatusesOn`. */
type AuthorColumns<P extends string> = {
  readonly [C in `${P}id` | `${P}version` | `${P}${AccountCounter}`]: unknown;
};

/**
 * One row of `visibleStatusesOn`: the page's id, the columns of each part (the status, its author, the boosted status and
 * its author) named with the part's prefix, and the marks (for a viewer).
 */
export type VisibleStatusRow = { readonly page_id: string } & StatusColumns<"post_"> &
  AuthorColumns<"author_"> &
  StatusColumns<"boosted_"> &
  AuthorColumns<"boosted_author_"> & { readonly [M in keyof StatusMarks]?: unknown };

const POST_COLUMNS: readonly string[] = ["id", "version", ...STATUS_COUNTERS];
const AUTHOR_COLUMNS: readonly string[] = ["id", "version", ...ACCOUNT_COUNTERS];

/** Each part of a row: the table alias it is read from, the prefix of its columns, and which columns. */
const PARTS = [
  { alias: "s", prefix: "post_", columns: POST_COLUMNS },
  { alias: "s_author", prefix: "author_", columns: AUTHOR_COLUMNS },
  { alias: "b", prefix: "boosted_", columns: POST_COLUMNS },
  { alias: "b_author", prefix: "boosted_author_", columns: AUTHOR_COLUMNS },
] as const;

/**
 * One statement for what rendering a page of statuses needs to know first: the ids of `page` (a subquery of one `id`
 * column: given ids, or a page of a feed), each joined to its status when the viewer may see it and to the status's
 * author, a boost to its boosted status and that status's author the same way, and the viewer's marks of the status shown.
 * Each of those had been a statement of its own, one after the other: on PostgreSQL a round trip each. Every id of
 * the page comes back, newest first, the status's columns empty when it may not be seen.
 */
export function visibleStatusesOn(
  db: Kysely<Database>,
  page: Expression<{ id: string }>,
  viewerId: string | null,
): Compilable<VisibleStatusRow> {
  return postsOfPage(
    db,
    db.with("page(id)", () => page),
    viewerId,
  );
}

/** A row of `visibleStatusesOnPages`: a row of `visibleStatusesOn`, and the place of the page it belongs to. */
export type PlacedVisibleStatusRow = VisibleStatusRow & { readonly place: unknown };

/**
 * `visibleStatusesOn` for the pages of several viewers in one statement: `pages` has a row per id of each page, with the
 * page's place and its viewer, and each row is read as that viewer sees it. Rows come newest first, the pages' rows
 * mixed: a page's rows are those of its place, in order.
 */
export function visibleStatusesOnPages(
  db: Kysely<Database>,
  pages: Expression<{ place: number; viewer_id: string; id: string }>,
): Compilable<PlacedVisibleStatusRow> {
  const creator = db.with("page(place, viewer_id, id)", () => pages);
  return postsOfPage(db, creator as unknown as PageCreator, sql.ref<string>("page.viewer_id")).select(sql.ref("page.place").as("place"));
}

const AUTHOR_JOINED: VisibilityOptions = { authorJoinedActive: true };

/** A query creator that holds the `page` being read. */
type PageCreator = QueryCreator<Database & { page: { id: string } }>;

function postsOfPage(db: Kysely<Database>, creator: PageCreator, viewer: Viewer) {
  const query = creator
    .selectFrom("page")
    // A status's author is joined only when not suspended, and a row without its author is no post the viewer may see
    // (`visibleStatusesOf`): the join is the visibility rule's check of the author, one probe a status instead of two.
    .leftJoin("statuses as s", (join) => join.onRef("s.id", "=", "page.id").on(visibleTo(viewer, "s", db, AUTHOR_JOINED)))
    .leftJoin("accounts as s_author", (join) => join.onRef("s_author.id", "=", "s.account_id").on("s_author.suspended_at", "is", null))
    .leftJoin("statuses as b", (join) => join.onRef("b.id", "=", "s.reblog_of_id").on(visibleTo(viewer, "b", db, AUTHOR_JOINED)))
    .leftJoin("accounts as b_author", (join) => join.onRef("b_author.id", "=", "b.account_id").on("b_author.suspended_at", "is", null))
    .select("page.id as page_id")
    .select(PARTS.flatMap((part) => part.columns.map((column) => sql.ref(`${part.alias}.${column}`).as(`${part.prefix}${column}`))))
    .orderBy("page.id", "desc");
  if (viewer === null) return query;
  // Each mark is at most one index probe for the status shown: the boosted status of a boost, else the status.
  const shown = sql.raw("coalesce(b.id, s.id)");
  const fence = existsFence(db);
  const mark = (condition: RawBuilder<unknown>) => sql<SqlBool>`exists (select 1 ${condition}${fence})`;
  return query.select([
    mark(sql`from favourites m where m.account_id = ${viewer} and m.status_id = ${shown}`).as("favourited"),
    mark(sql`from statuses m where m.reblog_of_id = ${shown} and m.account_id = ${viewer}`).as("reblogged"),
    mark(sql`from bookmarks m where m.account_id = ${viewer} and m.status_id = ${shown}`).as("bookmarked"),
    // Only one's own statuses can be pinned: the others' are not looked for.
    sql<SqlBool>`case when coalesce(b.account_id, s.account_id) = ${viewer} then ${mark(sql`from status_pins m where m.account_id = ${viewer} and m.status_id = ${shown}`)} else ${sql.lit(false)} end`.as(
      "pinned",
    ),
    mark(
      sql`from conversation_mutes m where m.account_id = ${viewer} and m.conversation_id = coalesce(b.conversation_id, s.conversation_id)`,
    ).as("muted"),
  ]);
}

/** The rows of `visibleStatusesOn` as a page: every id, and the statuses the viewer may see. */
export function visiblePageOf(rows: readonly VisibleStatusRow[]): VisiblePage {
  return { ids: rows.map((row) => row.page_id), posts: visibleStatusesOf(rows) };
}

/**
 * The rows of `visibleStatusesOn` as statuses: those the viewer may not see left out, a row without its author among them
 * (the author is joined only when not suspended), and a boosted status likewise.
 */
export function visibleStatusesOf(rows: readonly VisibleStatusRow[]): VisibleStatus[] {
  const posts: VisibleStatus[] = [];
  // Written out column by column: a page's 40 rows are read on every request, and building them generically (keys
  // made from prefixes) cost as much as SQLite's time in the statement.
  for (const row of rows) {
    if (row.post_id === null || row.author_id === null) continue;
    const post = postVersion(row.post_id, row.post_version, row.post_replies_count, row.post_reblogs_count, row.post_favourites_count);
    const author = authorVersion(
      row.author_id,
      row.author_version,
      row.author_statuses_count,
      row.author_followers_count,
      row.author_following_count,
      row.author_last_status_at,
    );
    const boosted =
      row.boosted_id === null || row.boosted_author_id === null
        ? null
        : {
            post: postVersion(
              row.boosted_id,
              row.boosted_version,
              row.boosted_replies_count,
              row.boosted_reblogs_count,
              row.boosted_favourites_count,
            ),
            author: authorVersion(
              row.boosted_author_id,
              row.boosted_author_version,
              row.boosted_author_statuses_count,
              row.boosted_author_followers_count,
              row.boosted_author_following_count,
              row.boosted_author_last_status_at,
            ),
          };
    const marks: StatusMarks | null =
      row.favourited === undefined
        ? null
        : {
            favourited: readFlag(row.favourited),
            reblogged: readFlag(row.reblogged),
            bookmarked: readFlag(row.bookmarked),
            pinned: readFlag(row.pinned),
            muted: readFlag(row.muted),
          };
    posts.push({ post, author, boosted, marks });
  }
  return posts;
}

function postVersion(id: unknown, version: unknown, replies: unknown, reblogs: unknown, favourites: unknown): StatusVersionRow {
  return {
    id: id as string,
    version: version as number,
    replies_count: replies as number,
    reblogs_count: reblogs as number,
    favourites_count: favourites as number,
  };
}

function authorVersion(
  id: unknown,
  version: unknown,
  statuses: unknown,
  followers: unknown,
  following: unknown,
  lastStatusAt: unknown,
): AccountVersionRow {
  return {
    id: id as string,
    version: version as number,
    statuses_count: statuses as number,
    followers_count: followers as number,
    following_count: following as number,
    last_status_at: lastStatusAt as string | null,
  };
}
