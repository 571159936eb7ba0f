import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../paginate-by-id.js";
import { writeFlag } from "./status-columns.js";
import type { Database } from "../schema.js";
import { notHiddenFrom } from "./hidden-authors.js";
import { notFromLimitedDomain } from "./limited-domains.js";

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
  /** Posts with any of these tags also count (beside `tag`). */
  readonly any?: readonly string[];
  /** Posts must also have every one of these. */
  readonly all?: readonly string[];
  /** Posts with any of these are left out. */
  readonly none?: readonly string[];
}

type StatusQuery = SelectQueryBuilder<Database, "statuses" | "accounts", { id: string }>;

/** Public posts of accounts in good standing, without boosts, with the viewer's hidden accounts left out. */
function publicStatuses(db: Kysely<Database>, viewer: TimelineViewer, options: PublicTimelineQuery): StatusQuery {
  let query = db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select("statuses.id")
    .where("statuses.visibility", "=", "public")
    .where("statuses.reblog_of_id", "is", null)
    .where("accounts.suspended_at", "is", null);
  if (options.local) query = query.where("statuses.local", "=", writeFlag(true));
  else if (options.remote) query = query.where("statuses.local", "=", writeFlag(false));
  if (options.onlyMedia) {
    query = query.where(({ exists, selectFrom }) =>
      exists(selectFrom("media_attachments").select("media_attachments.id").whereRef("media_attachments.status_id", "=", "statuses.id")),
    );
  }
  if (viewer.accountId) query = query.where(notHiddenFrom("statuses.account_id", viewer.accountId, viewer.now));
  query = query.where(notFromLimitedDomain("accounts.domain", "statuses.account_id", viewer.accountId));
  return query;
}

/** The public timeline: public top-level posts and self-replies, as Mastodon's public feed shows. */
export async function pagePublicTimeline(
  db: Kysely<Database>,
  viewer: TimelineViewer,
  options: PublicTimelineQuery,
  page: PageRequest,
): Promise<string[]> {
  const query = publicStatuses(db, viewer, options).where((eb) =>
    eb.or([eb("statuses.in_reply_to_id", "is", null), eb("statuses.in_reply_to_account_id", "=", eb.ref("statuses.account_id"))]),
  );
  return (await fetchIdPage(query, "statuses.id", page)).map((row) => row.id);
}

function withTags(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select("status_tags.status_id")
    .where("tags.name", "in", names);
}

/** A hashtag timeline: public posts with the tag (or one of `any`), all of `all`, none of `none`. */
export async function pageTagTimeline(
  db: Kysely<Database>,
  viewer: TimelineViewer,
  options: TagTimelineQuery,
  page: PageRequest,
): Promise<string[]> {
  let query = publicStatuses(db, viewer, options).where("statuses.id", "in", withTags(db, [options.tag, ...(options.any ?? [])]));
  for (const name of options.all ?? []) query = query.where("statuses.id", "in", withTags(db, [name]));
  if (options.none && options.none.length > 0) query = query.where("statuses.id", "not in", withTags(db, options.none));
  return (await fetchIdPage(query, "statuses.id", page)).map((row) => row.id);
}

/**
 * A list's timeline, read on demand: posts and boosts of the members the
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
