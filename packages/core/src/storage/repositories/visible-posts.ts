import { type Compilable, type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import { visibleTo } from "../../services/statuses/visibility.js";
import { compiledOnce } from "../compiled-once.js";
import { existsFence } from "../exists-fence.js";
import type { Database, StatusRow } from "../schema.js";
import { readFlag } from "./status-columns.js";

/** What of a post changes without a new version (migration 0020): its counters. */
export type StatusCounter = "replies_count" | "reblogs_count" | "favourites_count";
export const STATUS_COUNTERS: readonly StatusCounter[] = ["replies_count", "reblogs_count", "favourites_count"];
export type StatusVersionRow = Pick<StatusRow, "id" | "version" | StatusCounter>;

/** What the viewer did to a post: favourited, boosted, bookmarked, pinned it, muted its conversation. */
export interface PostMarks {
  readonly favourited: boolean;
  readonly reblogged: boolean;
  readonly bookmarked: boolean;
  readonly pinned: boolean;
  readonly muted: boolean;
}

/**
 * A post the viewer may see, as much as a renderer needs to know before reading more: its version and counters
 * (which tell whether a kept row is current), the same of the post it boosts, and the viewer's marks.
 */
export interface VisiblePost {
  readonly post: StatusVersionRow;
  /** For a boost, the boosted post when the viewer may see it too; null otherwise (a boost without it is not shown). */
  readonly boosted: StatusVersionRow | null;
  /** The viewer's marks of the post shown (the boosted post of a boost); null for a guest. */
  readonly marks: PostMarks | null;
}

/** A page of ids read from a list (a home feed), and those of its posts the viewer may see. */
export interface VisiblePage {
  /** Every id of the page, newest first, seen or not: a page's `Link` header pages by these. */
  readonly ids: string[];
  readonly posts: VisiblePost[];
}

/** The posts among `ids` the viewer may see (null: a guest), in no particular order. */
export async function loadVisiblePosts(db: Kysely<Database>, ids: readonly string[], viewerId: string | null): Promise<VisiblePost[]> {
  if (ids.length === 0) return [];
  return visiblePostsOf(await selectByIds(db, { ids, viewerId }));
}

// The page's ids are bound once, as the rows of the statement's `page` table.
const selectByIds = compiledOnce((db, args: { ids: readonly string[]; viewerId: string | null }) =>
  visiblePostsOn(db, sql<{ id: string }>`(values ${sql.join(args.ids.map((id) => sql`(${id})`))})`, args.viewerId),
);

/** The columns of one row of `visiblePostsOn`: a version's, a boosted post's prefixed `boosted_`, and the marks. */
export interface VisiblePostRow {
  readonly page_id: string;
  readonly id: string | null;
  readonly version: number | null;
  readonly replies_count: number | null;
  readonly reblogs_count: number | null;
  readonly favourites_count: number | null;
  readonly boosted_id: string | null;
  readonly boosted_version: number | null;
  readonly boosted_replies_count: number | null;
  readonly boosted_reblogs_count: number | null;
  readonly boosted_favourites_count: number | null;
  readonly favourited?: unknown;
  readonly reblogged?: unknown;
  readonly bookmarked?: unknown;
  readonly pinned?: unknown;
  readonly muted?: unknown;
}

/**
 * One statement for what rendering a page of posts needs to know first: the ids of `page` (a subquery of one `id`
 * column: given ids, or a page of a feed), each joined to its post when the viewer may see it, a boost to its boosted
 * post the same way, and the viewer's marks of the post shown. Each of those had been a statement of its own, one
 * after the other: on PostgreSQL a round trip each. Every id of the page comes back, newest first, the post's columns
 * empty when it may not be seen.
 */
export function visiblePostsOn(
  db: Kysely<Database>,
  page: Expression<{ id: string }>,
  viewerId: string | null,
): Compilable<VisiblePostRow> {
  const query = db
    .with("page(id)", () => page)
    .selectFrom("page")
    .leftJoin("statuses as s", (join) => join.onRef("s.id", "=", "page.id").on(visibleTo(viewerId, "s", db)))
    .leftJoin("statuses as b", (join) => join.onRef("b.id", "=", "s.reblog_of_id").on(visibleTo(viewerId, "b", db)))
    .select([
      "page.id as page_id",
      "s.id",
      "s.version",
      "s.replies_count",
      "s.reblogs_count",
      "s.favourites_count",
      "b.id as boosted_id",
      "b.version as boosted_version",
      "b.replies_count as boosted_replies_count",
      "b.reblogs_count as boosted_reblogs_count",
      "b.favourites_count as boosted_favourites_count",
    ])
    .orderBy("page.id", "desc");
  if (viewerId === null) return query;
  // Each mark is one index probe for the post shown: the boosted post of a boost, else the post.
  const shown = sql.raw("coalesce(b.id, s.id)");
  const fence = existsFence(db);
  const mark = (condition: RawBuilder<unknown>) => sql<SqlBool>`exists (select 1 ${condition}${fence})`;
  return query.select([
    mark(sql`from favourites m where m.account_id = ${viewerId} and m.status_id = ${shown}`).as("favourited"),
    mark(sql`from statuses m where m.reblog_of_id = ${shown} and m.account_id = ${viewerId}`).as("reblogged"),
    mark(sql`from bookmarks m where m.account_id = ${viewerId} and m.status_id = ${shown}`).as("bookmarked"),
    mark(sql`from status_pins m where m.account_id = ${viewerId} and m.status_id = ${shown}`).as("pinned"),
    mark(
      sql`from conversation_mutes m where m.account_id = ${viewerId} and m.conversation_id = coalesce(b.conversation_id, s.conversation_id)`,
    ).as("muted"),
  ]);
}

/** The rows of `visiblePostsOn` as posts: those the viewer may not see left out. */
export function visiblePostsOf(rows: readonly VisiblePostRow[]): VisiblePost[] {
  return rows.flatMap((row) => {
    if (row.id === null || row.version === null) return [];
    const post = versionOf(row.id, row.version, row.replies_count, row.reblogs_count, row.favourites_count);
    const boosted =
      row.boosted_id === null || row.boosted_version === null
        ? null
        : versionOf(
            row.boosted_id,
            row.boosted_version,
            row.boosted_replies_count,
            row.boosted_reblogs_count,
            row.boosted_favourites_count,
          );
    const marks =
      row.favourited === undefined
        ? null
        : {
            favourited: readFlag(row.favourited),
            reblogged: readFlag(row.reblogged),
            bookmarked: readFlag(row.bookmarked),
            pinned: readFlag(row.pinned),
            muted: readFlag(row.muted),
          };
    return [{ post, boosted, marks }];
  });
}

function versionOf(
  id: string,
  version: number,
  replies: number | null,
  reblogs: number | null,
  favourites: number | null,
): StatusVersionRow {
  return { id, version, replies_count: replies ?? 0, reblogs_count: reblogs ?? 0, favourites_count: favourites ?? 0 };
}
