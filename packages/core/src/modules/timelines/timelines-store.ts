import { type Compilable, type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, expressionBuilder, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { existsFence, fencedSubquery } from "../../platform/storage/exists-fence.js";
import { fetchIdPage, idPageQuery } from "../../platform/storage/paginate-by-id.js";
import type { Database } from "../../ports/storage-schema.js";
import { notHiddenFrom } from "../relationships/hidden-authors-store.js";
import { notFromLimitedDomain } from "../domain-policy/limited-domains-store.js";
import { type VisiblePage, type VisibleStatusRow, visiblePageOf, visibleStatusesOn } from "../statuses/visible-statuses-store.js";

/** Who reads a timeline and when: hidden accounts are those of the viewer. */
export interface TimelineViewer {
  readonly accountId: string | null;
  readonly now: string;
}

export interface PublicTimelineQuery {
  readonly local?: boolean;
  readonly remote?: boolean;
  readonly onlyMedia?: boolean;
}

export interface TagTimelineQuery extends PublicTimelineQuery {
  readonly tag: string;
  /** Statuses with any of these tags also count (beside `tag`). */
  readonly any?: readonly string[];
  /** Statuses must also have every one of these. */
  readonly all?: readonly string[];
  /** Statuses with any of these are left out. */
  readonly none?: readonly string[];
}

type StatusQuery = SelectQueryBuilder<Database, "statuses", { id: string }>;

/**
 * What makes a status show on the public timelines, for any query over
 * `statuses`: public, not a boost, by an account in good standing, not hidden
 * from the viewer. The author is one probe of `accounts` by its key, fenced
 * where the planner would rather join the whole table (platform/storage/exists-fence.ts):
 * PostgreSQL did, some of the time, scanning every account for each status.
 */
function publicConditions(db: Kysely<Database>, viewer: TimelineViewer, options: PublicTimelineQuery): Expression<SqlBool> {
  const eb = expressionBuilder<Database, "statuses">();
  // Constants written into the text, not bound: bound, PostgreSQL's generic plan took `public` for an average
  // visibility, expected to walk more statuses for a page than a plan made for `public`, and the large dataset's page
  // was planned on every run (2.2 ms of planning for a 1.5 ms run).
  const conditions: Expression<SqlBool>[] = [eb("statuses.visibility", "=", sql.lit("public")), eb("statuses.reblog_of_id", "is", null)];
  if (options.local) conditions.push(sql<SqlBool>`statuses.local = ${sql.lit(true)}`);
  else if (options.remote) conditions.push(sql<SqlBool>`statuses.local = ${sql.lit(false)}`);
  if (options.onlyMedia) {
    conditions.push(
      eb.exists(
        eb.selectFrom("media_attachments").select("media_attachments.id").whereRef("media_attachments.status_id", "=", "statuses.id"),
      ),
    );
  }
  if (viewer.accountId) conditions.push(notHiddenFrom("statuses.account_id", viewer.accountId, viewer.now));
  conditions.push(sql<SqlBool>`exists (select 1 from accounts pub_a where pub_a.id = statuses.account_id and pub_a.suspended_at is null
    and ${notFromLimitedDomain("pub_a.domain", "statuses.account_id", viewer.accountId)}${existsFence(db)})`);
  return eb.and(conditions);
}

/** Public statuses of accounts in good standing, without boosts, with the viewer's hidden accounts left out. */
function publicStatuses(db: Kysely<Database>, viewer: TimelineViewer, options: PublicTimelineQuery): StatusQuery {
  return db
    .selectFrom("statuses")
    .select("statuses.id")
    .where(publicConditions(db, viewer, options));
}

/**
 * A page of the public timeline (public top-level statuses and self-replies, as
 * Mastodon's public feed shows), read with what rendering its statuses needs to
 * know first (visible-statuses.ts): one statement, as a home page is.
 */
export async function loadPublicTimelinePage(
  db: Kysely<Database>,
  viewer: TimelineViewer,
  options: PublicTimelineQuery,
  page: PageRequest,
): Promise<VisiblePage> {
  return visiblePageOf(await selectPublicPage(db, publicPageArgs(viewer, options, page)));
}

/** A public page's values, as compiledOnce takes them: the options are part of the shape, so they are numbers. */
type PublicPageArgs = {
  readonly viewerId: string | undefined;
  readonly now: string;
  readonly local: number;
  readonly remote: number;
  readonly onlyMedia: number;
  readonly limit: number;
  readonly maxId: string | undefined;
  readonly sinceId: string | undefined;
  readonly minId: string | undefined;
};

function publicPageArgs(viewer: TimelineViewer, options: PublicTimelineQuery, page: PageRequest): PublicPageArgs {
  return {
    viewerId: viewer.accountId ?? undefined,
    now: viewer.now,
    local: options.local ? 1 : 0,
    remote: options.remote ? 1 : 0,
    onlyMedia: options.onlyMedia ? 1 : 0,
    limit: page.limit,
    maxId: page.maxId,
    sinceId: page.sinceId,
    minId: page.minId,
  };
}

function viewerOf(args: PublicPageArgs): TimelineViewer {
  return { accountId: args.viewerId ?? null, now: args.now };
}

function optionsOf(args: PublicPageArgs): PublicTimelineQuery {
  return { local: args.local === 1, remote: args.remote === 1, onlyMedia: args.onlyMedia === 1 };
}

/** A page of ids (`idPageQuery`), with its statuses as `visibleStatusesOn` reads them for the viewer. */
async function readVisiblePage(db: Kysely<Database>, pageQuery: Expression<{ id: string }>, viewer: TimelineViewer): Promise<VisiblePage> {
  const query: Compilable<VisibleStatusRow> = visibleStatusesOn(db, pageQuery, viewer.accountId);
  return visiblePageOf((await db.executeQuery(query.compile())).rows);
}

// The public and hashtag pages are compiled once per shape: building their
// conditions cost about as much as running them.
const selectPublicPage = compiledOnce((db, args: PublicPageArgs) =>
  visibleStatusesOn(
    db,
    idPageQuery(
      publicStatuses(db, viewerOf(args), optionsOf(args)).where((eb) =>
        eb.or([eb("statuses.in_reply_to_id", "is", null), eb("statuses.in_reply_to_account_id", "=", eb.ref("statuses.account_id"))]),
      ),
      "statuses.id",
      args,
    ),
    args.viewerId ?? null,
  ),
);

function withTags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select("status_tags.status_id")
    .where("tags.name", "in", names);
}

/** The post in `statuses` has the tag `name`: one probe of `status_tags (tag_id, status_id)` per status. */
function hasTag(name: string): Expression<SqlBool> {
  const eb = expressionBuilder<Database, "statuses">();
  return eb.exists(
    eb
      .selectFrom("status_tags as has_tag")
      .innerJoin("tags as has_tag_name", "has_tag_name.id", "has_tag.tag_id")
      .select("has_tag.status_id")
      .whereRef("has_tag.status_id", "=", "statuses.id")
      .where("has_tag_name.name", "=", name),
  );
}

/**
 * A page of a hashtag timeline, read with what rendering its statuses needs to
 * know first, in one statement: public statuses with the tag (or one of `any`),
 * all of `all`, none of `none`. With one tag (the usual request) the page walks
 * `status_tags (tag_id, status_id)` newest first and stops at the page's
 * end, so it costs the same however many statuses have the tag; starting from
 * `statuses` instead gathered every status id of the tag before taking the
 * newest. With `any` a status may have several of the tags, so it is found
 * from `statuses` as before.
 */
export async function loadTagTimelinePage(
  db: Kysely<Database>,
  viewer: TimelineViewer,
  options: TagTimelineQuery,
  page: PageRequest,
): Promise<VisiblePage> {
  const extra = [...(options.all ?? []).map(hasTag), ...(options.none ?? []).map((name) => not(hasTag(name)))];
  if (options.any && options.any.length > 0) {
    let query = publicStatuses(db, viewer, options).where("statuses.id", "in", withTags(db, [options.tag, ...options.any]));
    for (const condition of extra) query = query.where(condition);
    return readVisiblePage(db, idPageQuery(query, "statuses.id", page), viewer);
  }
  if (extra.length > 0)
    return readVisiblePage(db, idPageQuery(tagWalk(db, viewer, options, options.tag, extra), "status_tags.status_id", page), viewer);
  return visiblePageOf(await selectTagPage(db, { ...publicPageArgs(viewer, options, page), tag: options.tag }));
}

/**
 * The statuses with one tag, from `status_tags` in index order, each status and
 * its author checked by their keys as the walk reaches them. Written as a
 * join, PostgreSQL misjudged how many statuses pass the viewer's conditions and
 * hashed every status of the database to find a page (6 ms for the small
 * dataset's tag); with the status's conditions in a fenced `exists`, both
 * engines stop at the page's end.
 */
function tagWalk(
  db: Kysely<Database>,
  viewer: TimelineViewer,
  options: PublicTimelineQuery,
  tag: string,
  extra: readonly Expression<SqlBool>[] = [],
) {
  let shown = db
    .selectFrom("statuses")
    .select(sql`1`.as("one"))
    .where(sql<SqlBool>`statuses.id = status_tags.status_id`)
    .where(publicConditions(db, viewer, options));
  for (const condition of extra) shown = shown.where(condition);
  return db
    .selectFrom("status_tags")
    .select("status_tags.status_id as id")
    .where("status_tags.tag_id", "=", (eb) => eb.selectFrom("tags").select("tags.id").where("tags.name", "=", tag))
    .where((eb) => eb.exists(fencedSubquery(db, shown)));
}

const selectTagPage = compiledOnce((db, args: PublicPageArgs & { readonly tag: string }) =>
  visibleStatusesOn(
    db,
    idPageQuery(tagWalk(db, viewerOf(args), optionsOf(args), args.tag), "status_tags.status_id", args),
    args.viewerId ?? null,
  ),
);

function not(condition: Expression<SqlBool>): Expression<SqlBool> {
  return expressionBuilder<Database, never>().not(condition);
}

/**
 * A list's timeline, read on demand: statuses and boosts of the members the
 * owner still follows, that the owner may see (not direct), with replies as
 * the list's policy says. Lists are small, so this is a range scan of
 * `statuses (account_id, id)` per member, merged by the engine.
 */
export async function pageListTimeline(
  db: Kysely<Database>,
  list: { readonly id: string; readonly ownerId: string; readonly repliesPolicy: string },
  now: string,
  page: PageRequest,
): Promise<string[]> {
  const members = db
    .selectFrom("list_accounts")
    .innerJoin("follows", (join) =>
      join.onRef("follows.target_account_id", "=", "list_accounts.account_id").on("follows.account_id", "=", list.ownerId),
    )
    .select("list_accounts.account_id")
    .where("list_accounts.list_id", "=", list.id);
  let query = db
    .selectFrom("statuses")
    .select("statuses.id")
    .where("statuses.account_id", "in", members)
    .where("statuses.visibility", "in", ["public", "unlisted", "private"])
    .where(notHiddenFrom("statuses.account_id", list.ownerId, now));
  const selfReply = sql<boolean>`statuses.in_reply_to_account_id = statuses.account_id`;
  if (list.repliesPolicy === "none") {
    query = query.where((eb) => eb.or([eb("statuses.in_reply_to_id", "is", null), selfReply]));
  } else if (list.repliesPolicy === "list") {
    const inList = db.selectFrom("list_accounts").select("account_id").where("list_id", "=", list.id);
    query = query.where((eb) =>
      eb.or([
        eb("statuses.in_reply_to_id", "is", null),
        selfReply,
        eb("statuses.in_reply_to_account_id", "=", list.ownerId),
        eb("statuses.in_reply_to_account_id", "in", inList),
      ]),
    );
  } else {
    const followed = db.selectFrom("follows").select("target_account_id").where("account_id", "=", list.ownerId);
    query = query.where((eb) =>
      eb.or([
        eb("statuses.in_reply_to_id", "is", null),
        selfReply,
        eb("statuses.in_reply_to_account_id", "=", list.ownerId),
        eb("statuses.in_reply_to_account_id", "in", followed),
      ]),
    );
  }
  return (await fetchIdPage(query, "statuses.id", page)).map((row) => row.id);
}
