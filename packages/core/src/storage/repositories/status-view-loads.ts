import { type Kysely, sql } from "kysely";
import { visibleTo } from "../../services/statuses/visibility.js";
import { compiledOnce } from "../compiled-once.js";
import type { Database, PollRow, StatusRow } from "../schema.js";

/**
 * The batched reads behind rendering posts: each takes every id at once, so
 * rendering a page costs the same number of queries however long it is.
 */

/** What of a post changes without a new version (migration 0020): its counters. */
export type StatusCounter = "replies_count" | "reblogs_count" | "favourites_count";
export const STATUS_COUNTERS: readonly StatusCounter[] = ["replies_count", "reblogs_count", "favourites_count"];
export type StatusVersionRow = Pick<StatusRow, "id" | "version" | StatusCounter>;

/** The version and counters of the posts among `ids` the viewer may see: what tells whether a kept row is current. */
export async function loadVisibleStatusVersions(
  db: Kysely<Database>,
  ids: readonly string[],
  viewerId: string | null,
): Promise<StatusVersionRow[]> {
  if (ids.length === 0) return [];
  return selectVisibleVersions(db, { ids, viewerId });
}

const VERSION_COLUMNS: readonly `statuses.${"id" | "version" | StatusCounter}`[] = [
  "statuses.id",
  "statuses.version",
  ...STATUS_COUNTERS.map((counter) => `statuses.${counter}` as const),
];

// A guest (null) and a reader are two shapes of one statement: compiledOnce keeps one for each.
const selectVisibleVersions = compiledOnce((db, args: { ids: readonly string[]; viewerId: string | null }) =>
  db
    .selectFrom("statuses")
    .select(VERSION_COLUMNS)
    .where("statuses.id", "in", args.ids)
    .where(visibleTo(args.viewerId, "statuses", db)),
);

/** The rows of the posts among `ids` that exist, whoever may see them. */
export async function loadStatusRows(db: Kysely<Database>, ids: readonly string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return selectStatusRows(db, { ids });
}

const selectStatusRows = compiledOnce((db, args: { ids: readonly string[] }) =>
  db.selectFrom("statuses").selectAll("statuses").where("statuses.id", "in", args.ids),
);

export interface MentionedAccountRow {
  readonly status_id: string;
  readonly account_id: string;
  readonly username: string;
  readonly domain: string | null;
  readonly url: string | null;
}

export async function loadMentions(db: Kysely<Database>, statusIds: readonly string[]): Promise<MentionedAccountRow[]> {
  if (statusIds.length === 0) return [];
  return db
    .selectFrom("mentions")
    .innerJoin("accounts", "accounts.id", "mentions.account_id")
    .select(["mentions.status_id", "mentions.account_id", "accounts.username", "accounts.domain", "accounts.url"])
    .where("mentions.status_id", "in", statusIds)
    .orderBy("mentions.created_at")
    .execute();
}

export interface StatusTagRow {
  readonly status_id: string;
  readonly name: string;
  readonly display_name: string;
}

export async function loadStatusTags(db: Kysely<Database>, statusIds: readonly string[]): Promise<StatusTagRow[]> {
  if (statusIds.length === 0) return [];
  return db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select(["status_tags.status_id", "tags.name", "tags.display_name"])
    .where("status_tags.status_id", "in", statusIds)
    .execute();
}

export async function loadPolls(db: Kysely<Database>, statusIds: readonly string[]): Promise<PollRow[]> {
  if (statusIds.length === 0) return [];
  return db.selectFrom("polls").selectAll().where("status_id", "in", statusIds).execute();
}

export async function loadOwnVotes(
  db: Kysely<Database>,
  pollIds: readonly string[],
  accountId: string,
): Promise<{ poll_id: string; choice: number }[]> {
  if (pollIds.length === 0) return [];
  return db
    .selectFrom("poll_votes")
    .select(["poll_id", "choice"])
    .where("poll_id", "in", pollIds)
    .where("account_id", "=", accountId)
    .orderBy("choice")
    .execute();
}

export async function loadApplications(
  db: Kysely<Database>,
  appIds: readonly string[],
): Promise<{ id: string; name: string; website: string | null }[]> {
  if (appIds.length === 0) return [];
  return db.selectFrom("oauth_apps").select(["id", "name", "website"]).where("id", "in", appIds).execute();
}

/** What the viewer did to the posts: favourited, boosted, bookmarked, pinned, muted the conversation. */
export interface ViewerMarks {
  readonly favourited: Set<string>;
  readonly reblogged: Set<string>;
  readonly bookmarked: Set<string>;
  readonly pinned: Set<string>;
  readonly mutedConversations: Set<string>;
}

export async function loadViewerMarks(
  db: Kysely<Database>,
  statusIds: readonly string[],
  conversationIds: readonly string[],
  viewerId: string,
): Promise<ViewerMarks> {
  if (statusIds.length === 0) {
    return { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() };
  }
  // One statement for the five marks: a page of posts costs one round trip for them, not five.
  const rows =
    conversationIds.length === 0
      ? await selectMarks(db, { viewerId, statusIds })
      : await selectMarksWithMutes(db, { viewerId, statusIds, conversationIds });
  const of = (kind: string) => new Set(rows.filter((row) => row.kind === kind).map((row) => row.ref));
  return { favourited: of("f"), reblogged: of("r"), bookmarked: of("b"), pinned: of("p"), mutedConversations: of("m") };
}

/** The database with the `page` table of the marks' statement. */
type WithPage = Kysely<Database & { page: { id: string } }>;

/**
 * The marks of the posts whose ids are the rows of `page`, a table the statement itself holds: binding a page's 40
 * ids once instead of once per mark cost 26 instead of 37 µs of SQLite CPU. Each mark is the page joined to its
 * table, one index probe per post: an `in (select id from page)` made SQLite build a list of the page for each of the
 * four marks first, which cost 45-75 µs for a page of 40 against 28-43 µs for the joins.
 */
function marksOf(db: WithPage, viewerId: string) {
  return db
    .selectFrom("page")
    .innerJoin("favourites", (join) => join.onRef("favourites.status_id", "=", "page.id").on("favourites.account_id", "=", viewerId))
    .select([sql<string>`'f'`.as("kind"), "favourites.status_id as ref"])
    .unionAll(
      db
        .selectFrom("page")
        .innerJoin("statuses", (join) => join.onRef("statuses.reblog_of_id", "=", "page.id").on("statuses.account_id", "=", viewerId))
        .select([sql<string>`'r'`.as("kind"), "page.id as ref"]),
    )
    .unionAll(
      db
        .selectFrom("page")
        .innerJoin("bookmarks", (join) => join.onRef("bookmarks.status_id", "=", "page.id").on("bookmarks.account_id", "=", viewerId))
        .select([sql<string>`'b'`.as("kind"), "bookmarks.status_id as ref"]),
    )
    .unionAll(
      db
        .selectFrom("page")
        .innerJoin("status_pins", (join) => join.onRef("status_pins.status_id", "=", "page.id").on("status_pins.account_id", "=", viewerId))
        .select([sql<string>`'p'`.as("kind"), "status_pins.status_id as ref"]),
    );
}

/** `marks` (a union of marks) read with the page's ids given once, as the rows of its `page` table. */
function onPageOf(db: Kysely<Database>, statusIds: readonly string[], marks: (db: WithPage) => ReturnType<typeof marksOf>) {
  return db
    .with("page(id)", () => sql<{ id: string }>`(values ${sql.join(statusIds.map((id) => sql`(${id})`))})`)
    .selectFrom((qc) => marks(qc as unknown as WithPage).as("marks"))
    .select(["marks.kind", "marks.ref"]);
}

const selectMarks = compiledOnce((db, args: { viewerId: string; statusIds: readonly string[] }) =>
  onPageOf(db, args.statusIds, (page) => marksOf(page, args.viewerId)),
);

const selectMarksWithMutes = compiledOnce(
  (db, args: { viewerId: string; statusIds: readonly string[]; conversationIds: readonly string[] }) =>
    onPageOf(db, args.statusIds, (page) =>
      marksOf(page, args.viewerId).unionAll(
        page
          .selectFrom("conversation_mutes")
          .select([sql<string>`'m'`.as("kind"), "conversation_id as ref"])
          .where("account_id", "=", args.viewerId)
          .where("conversation_id", "in", args.conversationIds),
      ),
    ),
);
