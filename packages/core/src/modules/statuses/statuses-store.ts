import { type Insertable, type Kysely, type QueryCreator, sql } from "kysely";
import { visibleTo } from "./visibility-store.js";
import { type StatementArgs, compiledOnce } from "../../platform/storage/compiled-once.js";
import type { AccountRow, Database, DbBool, StatusRow, StatusesTable } from "../../ports/storage-schema.js";
import { capabilitiesOf } from "../../platform/storage/storage-handles.js";
import { type FollowerReader, followerReaderOf, localFollowersQuery } from "../timelines/fan-out-store.js";
import type { StatusCounter } from "./visible-statuses-store.js";
import { deleteMentionNotificationsBut } from "../notifications/notifications-store.js";
import { bumpQuotesCount, markQuotesDeleted } from "./quotes-store.js";

/** Reads and writes of statuses and what hangs off them; callers pass the transaction they work in. */

export async function findStatus(db: Kysely<Database>, id: string): Promise<StatusRow | null> {
  return (await db.selectFrom("statuses").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/** The status if the viewer may see it, else null. */
export async function findVisibleStatus(db: Kysely<Database>, id: string, viewerId: string | null): Promise<StatusRow | null> {
  return (
    (await db
      .selectFrom("statuses")
      .selectAll("statuses")
      .where("statuses.id", "=", id)
      .where(visibleTo(viewerId, "statuses", db))
      .executeTakeFirst()) ?? null
  );
}

/** Inserts a status and returns its row as stored, defaults filled in (a new status is rendered from it, not read back). */
export async function insertStatus(db: Kysely<Database>, row: Insertable<StatusesTable>): Promise<StatusRow> {
  // Its values are strings, numbers, null and flags (booleans at run time, see writeFlag), as a compiled statement takes.
  const [inserted] = await insertStatusRow(db, row as unknown as StatementArgs);
  if (!inserted) throw new Error("The post's insert returned no row");
  return inserted;
}

// Written for every status: built and compiled once per set of columns (and per flag and empty column).
const insertStatusRow = compiledOnce((db, row: StatementArgs) =>
  db
    .insertInto("statuses")
    .values(row as unknown as Insertable<StatusesTable>)
    .returningAll(),
);

/**
 * Inserts a status and counts it on its author (`statuses_count`, and
 * `last_status_at` when given), where nothing renders the status or its author
 * from the write (a status or boost from another server). One statement where
 * the engine writes in a `with` (`StorageCapabilities.writingWith`), two
 * elsewhere.
 */
export async function insertCountedStatus(
  db: Kysely<Database>,
  row: Insertable<StatusesTable>,
  lastStatusAt: string | null,
): Promise<void> {
  if (capabilitiesOf(db)?.writingWith) {
    await insertStatusCountingAuthor(db, { ...(row as unknown as StatementArgs), [LAST_STATUS_AT]: lastStatusAt });
    return;
  }
  await insertStatus(db, row);
  await countAccountStatuses(db, row.account_id, 1, lastStatusAt);
}

/**
 * Inserts a post as `insertCountedStatus` does and, where the engine writes
 * in a `with`, reads the author's first `followersLimit` local followers in
 * the same statement: the reactions to a new status read them otherwise, in a
 * round trip of their own. Returns them (account id order), or null where
 * they were not read.
 */
export async function insertCountedStatusReadingFollowers(
  db: Kysely<Database>,
  row: Insertable<StatusesTable>,
  lastStatusAt: string | null,
  followersLimit: number,
): Promise<FollowerReader[] | null> {
  if (!capabilitiesOf(db)?.writingWith) {
    await insertCountedStatus(db, row, lastStatusAt);
    return null;
  }
  const args = { ...(row as unknown as StatementArgs), [LAST_STATUS_AT]: lastStatusAt, [FOLLOWERS_LIMIT]: followersLimit };
  return (await insertStatusReadingFollowers(db, args)).map(followerReaderOf);
}

/** The arguments of the statements below that are not columns of the status. */
const LAST_STATUS_AT = "author's last_status_at";
const FOLLOWERS_LIMIT = "author's followers limit";

/** The status's insert as a `with` named `added`, returning its author. */
function withAddedPost(db: Kysely<Database>, args: StatementArgs) {
  const { [LAST_STATUS_AT]: _lastStatusAt, [FOLLOWERS_LIMIT]: _limit, ...row } = args;
  return db.with("added", () =>
    db
      .insertInto("statuses")
      .values(row as unknown as Insertable<StatusesTable>)
      .returning("account_id"),
  );
}

/** The author of the post in `added` counted from the insert's returned row. */
function authorCountedFromAdded(db: QueryCreator<Database & { added: { account_id: string } }>, args: StatementArgs) {
  const lastStatusAt = args[LAST_STATUS_AT];
  return db
    .updateTable("accounts")
    .set(accountStatusesSet(1, typeof lastStatusAt === "string" ? lastStatusAt : null))
    .where("id", "in", (eb) => eb.selectFrom("added").select("added.account_id"));
}

// Written for every status or boost from another server: built and compiled once per set of columns.
const insertStatusCountingAuthor = compiledOnce((db, args: StatementArgs) => authorCountedFromAdded(withAddedPost(db, args), args));

// PostgreSQL runs a data-modifying `with` to completion whether or not the statement's result reads it.
const insertStatusReadingFollowers = compiledOnce((db, args: StatementArgs) =>
  localFollowersQuery(
    // The followers' query reads the schema's tables only: the names the `with`s add are nothing to it.
    withAddedPost(db, args).with("counted", (wdb) => authorCountedFromAdded(wdb, args)) as unknown as QueryCreator<Database>,
    { authorId: String(args.account_id), limit: Number(args[FOLLOWERS_LIMIT]) },
  ),
);

export interface PostingDefaults {
  readonly silenced_at: string | null;
  readonly default_visibility: string | null;
  readonly default_sensitive: DbBool | null;
  readonly default_language: string | null;
  readonly app_id: string | null;
  /** The session's application as a status shows it; null without one. */
  readonly app_name: string | null;
  readonly app_website: string | null;
}

/** What a new status of the account takes by default, and the application of the session it is made through: one statement for both. */
export async function postingDefaults(
  db: Kysely<Database>,
  accountId: string,
  sessionId: string | null,
): Promise<PostingDefaults | undefined> {
  return (await selectPostingDefaults(db, { accountId, sessionId: sessionId ?? "" }))[0];
}

// Read for every status: built and compiled once.
const selectPostingDefaults = compiledOnce((db, args: { accountId: string; sessionId: string }) =>
  db
    .selectFrom("accounts")
    .leftJoin("users", "users.account_id", "accounts.id")
    .leftJoin("sessions", (join) => join.on("sessions.id", "=", args.sessionId))
    .leftJoin("oauth_apps", "oauth_apps.id", "sessions.app_id")
    .select([
      "accounts.silenced_at",
      "users.default_visibility",
      "users.default_sensitive",
      "users.default_language",
      "sessions.app_id",
      "oauth_apps.name as app_name",
      "oauth_apps.website as app_website",
    ])
    .where("accounts.id", "=", args.accountId),
);

export interface AccountHandleRow {
  readonly id: string;
  readonly username: string;
  readonly domain: string | null;
  readonly url: string | null;
  readonly acct_key: string;
}

/** Accounts not suspended, with what a mention needs, by acct key or by id. */
async function accountHandles(db: Kysely<Database>, by: "acct_key" | "id", values: readonly string[]): Promise<AccountHandleRow[]> {
  if (values.length === 0) return [];
  return db
    .selectFrom("accounts")
    .select(["id", "username", "domain", "url", "acct_key"])
    .where(by, "in", [...new Set(values)])
    .where("suspended_at", "is", null)
    .execute();
}

export function accountsByAcctKeys(db: Kysely<Database>, keys: readonly string[]): Promise<AccountHandleRow[]> {
  return accountHandles(db, "acct_key", keys);
}

export function accountsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<AccountHandleRow[]> {
  return accountHandles(db, "id", ids);
}

/**
 * The remote accounts a status reached beyond its author's followers, as
 * Mastodon counts them for a Delete: the ones it mentions or replies to, and
 * those that boosted, favourited or replied to it.
 */
export async function reachedRemoteAccountIds(
  db: Kysely<Database>,
  status: Pick<StatusRow, "id" | "in_reply_to_account_id">,
): Promise<string[]> {
  const rows = await db
    .selectFrom("accounts")
    .select("id")
    .where("domain", "is not", null)
    .where((eb) =>
      eb.or([
        eb("id", "in", eb.selectFrom("mentions").select("account_id").where("status_id", "=", status.id)),
        eb("id", "in", eb.selectFrom("favourites").select("account_id").where("status_id", "=", status.id)),
        eb("id", "in", eb.selectFrom("statuses").select("account_id").where("reblog_of_id", "=", status.id)),
        eb("id", "in", eb.selectFrom("statuses").select("account_id").where("in_reply_to_id", "=", status.id)),
        eb("id", "=", status.in_reply_to_account_id ?? ""),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** `fresh`: the status is new and has no rows to replace yet. */
export async function replaceMentions(
  db: Kysely<Database>,
  statusId: string,
  accountIds: readonly string[],
  now: string,
  options: { fresh?: boolean } = {},
): Promise<void> {
  if (!options.fresh) {
    await db.deleteFrom("mentions").where("status_id", "=", statusId).execute();
    // A mention an edit drops takes its notification with it, as in Mastodon.
    await deleteMentionNotificationsBut(db, statusId, accountIds);
  }
  if (accountIds.length === 0) return;
  await db
    .insertInto("mentions")
    .values(accountIds.map((accountId) => ({ status_id: statusId, account_id: accountId, created_at: now })))
    .execute();
}

/**
 * How stale a tag's `last_status_at` may be before a status that uses the tag writes it again. Writing it on every use
 * made each post with a popular tag update, and on PostgreSQL lock until its commit, that tag's one row: statuses with the
 * same tag waited for each other (bench/READING.md, "Measurements behind the code"). The time orders tags found by a search, and half a day is what Mastodon keeps too.
 */
export const TAG_USE_PRECISION_MS = 12 * 3_600_000;

/** Runs of `insertOrReadTags` before the upsert, which always finds every tag, is left to read them. */
const TAG_READ_ATTEMPTS = 3;

interface TagArgs extends StatementArgs {
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly displayNames: readonly string[];
  readonly now: string;
  /** Existing tags last used before this are marked used `now`. */
  readonly staleBefore: string;
}

/**
 * Creates the tags that do not exist yet and returns the ids of all, keyed by normalised name; marks each used `now`
 * when its last use is older than `TAG_USE_PRECISION_MS`.
 */
export async function ensureTags(
  db: Kysely<Database>,
  tags: readonly { name: string; displayName: string }[],
  newId: () => string,
  now: string,
): Promise<Map<string, string>> {
  if (tags.length === 0) return new Map();
  // A name appears once, as a statement may not write one row twice.
  const unique = [...new Map(tags.map((tag) => [tag.name, tag])).values()];
  const args: TagArgs = {
    ids: unique.map(() => newId()),
    names: unique.map((tag) => tag.name),
    displayNames: unique.map((tag) => tag.displayName),
    now,
    staleBefore: new Date(Date.parse(now) - TAG_USE_PRECISION_MS).toISOString(),
  };
  if (capabilitiesOf(db)?.writingWith) {
    for (let attempt = 1; attempt <= TAG_READ_ATTEMPTS; attempt++) {
      const found = new Map((await insertOrReadTags(db, args)).map((row) => [row.name, row.id]));
      // A tag inserted by another session after this statement's snapshot was taken is neither inserted nor read
      // here: the next run's snapshot has it.
      if (found.size === unique.length) return found;
    }
  }
  return new Map((await upsertTags(db, args)).map((row) => [row.name, row.id]));
}

function newTagRows(args: TagArgs) {
  return args.ids.map((id, i) => ({
    id,
    name: args.names[i] ?? "",
    display_name: args.displayNames[i] ?? "",
    created_at: args.now,
    updated_at: args.now,
    last_status_at: args.now,
  }));
}

// One statement: an insert that touches a tag which exists already, both returning the id (SQLite: one writer, so
// touching the row holds nobody up; on PostgreSQL, the last resort that finds every tag, locking them). Built and
// compiled once per number of tags.
const upsertTags = compiledOnce((db, args: TagArgs) =>
  db
    .insertInto("tags")
    .values(newTagRows(args))
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({
        last_status_at: sql<string>`case when tags.last_status_at is null or tags.last_status_at < ${args.staleBefore} then excluded.last_status_at else tags.last_status_at end`,
      }),
    )
    .returning(["id", "name"]),
);

// PostgreSQL: new tags inserted, existing ones read, and those last used before `staleBefore` marked, in one statement
// that leaves a fresh tag's row unlocked (an upsert locks the row it finds until the commit, even when it changes
// nothing). The read sees the tags as they were before the statement, so it and the insert's rows never overlap.
const insertOrReadTags = compiledOnce((db, args: TagArgs) =>
  db
    .with("added", (db) =>
      db
        .insertInto("tags")
        .values(newTagRows(args))
        .onConflict((oc) => oc.column("name").doNothing())
        .returning(["id", "name"]),
    )
    .with("marked", (db) =>
      db
        .updateTable("tags")
        .set({ last_status_at: args.now })
        .where("name", "in", args.names)
        .where((eb) => eb.or([eb("last_status_at", "is", null), eb("last_status_at", "<", args.staleBefore)]))
        .returning("id"),
    )
    .selectFrom("added")
    .select(["added.id", "added.name"])
    .unionAll((eb) => eb.selectFrom("tags").select(["tags.id", "tags.name"]).where("tags.name", "in", args.names)),
);

export async function replaceStatusTags(
  db: Kysely<Database>,
  statusId: string,
  tagIds: readonly string[],
  options: { fresh?: boolean } = {},
): Promise<void> {
  if (!options.fresh) await db.deleteFrom("status_tags").where("status_id", "=", statusId).execute();
  if (tagIds.length === 0) return;
  await insertStatusTags(db, { statusId, tagIds: [...new Set(tagIds)] });
}

const insertStatusTags = compiledOnce((db, args: { statusId: string; tagIds: readonly string[] }) =>
  db.insertInto("status_tags").values(args.tagIds.map((tagId) => ({ tag_id: tagId ?? "", status_id: args.statusId }))),
);

/** Adds `delta` to a status's counter, never below zero. */
export async function bumpStatusCounter(db: Kysely<Database>, statusId: string, column: StatusCounter, delta: number): Promise<void> {
  await counterUpdates[column](db, { statusId, delta });
}

function counterUpdate(column: StatusCounter) {
  const ref = sql.ref(column);
  return compiledOnce((db, args: { statusId: string; delta: number }) =>
    db
      .updateTable("statuses")
      .set({ [column]: sql<number>`case when ${ref} + ${args.delta} < 0 then 0 else ${ref} + ${args.delta} end` })
      .where("id", "=", args.statusId),
  );
}

// Every like, boost and reply from here or elsewhere bumps one: built and compiled once per column and delta.
const counterUpdates = {
  replies_count: counterUpdate("replies_count"),
  reblogs_count: counterUpdate("reblogs_count"),
  favourites_count: counterUpdate("favourites_count"),
};

/** Keeps an account's `statuses_count` (and, for a new status, `last_status_at`) in step. */
export async function bumpAccountStatuses(
  db: Kysely<Database>,
  accountId: string,
  delta: number,
  lastStatusAt: string | null,
): Promise<AccountRow | undefined> {
  // The account as it now is comes back: a new status's author is rendered from it instead of being read again.
  return (await updateAccountStatuses(db, { accountId, delta, lastStatusAt }))[0];
}

/**
 * Keeps an account's `statuses_count` (and `last_status_at`) in step where nothing renders the account from the
 * write (a remote status stored, a boost or status removed): its wide row is not sent back.
 */
export async function countAccountStatuses(
  db: Kysely<Database>,
  accountId: string,
  delta: number,
  lastStatusAt: string | null,
): Promise<void> {
  await updateAccountStatusesOnly(db, { accountId, delta, lastStatusAt });
}

interface AccountStatusesChange extends StatementArgs {
  readonly accountId: string;
  readonly delta: number;
  readonly lastStatusAt: string | null;
}

/** An account's status count moved by `delta` (never below zero), and its last status's time when given. */
const accountStatusesSet = (delta: number, lastStatusAt: string | null) => ({
  statuses_count: sql<number>`case when statuses_count + ${delta} < 0 then 0 else statuses_count + ${delta} end`,
  ...(lastStatusAt !== null && { last_status_at: lastStatusAt }),
});

const accountStatusesUpdate = (db: Kysely<Database>, args: AccountStatusesChange) =>
  db.updateTable("accounts").set(accountStatusesSet(args.delta, args.lastStatusAt)).where("id", "=", args.accountId);

// Written for every status: built and compiled once per delta, with or without a new last status time.
const updateAccountStatuses = compiledOnce((db, args: AccountStatusesChange) => accountStatusesUpdate(db, args).returningAll());
const updateAccountStatusesOnly = compiledOnce(accountStatusesUpdate);

/** The post an account made with `key` at or after `since`, if any. */
export async function findIdempotentStatus(db: Kysely<Database>, accountId: string, key: string, since: string): Promise<string | null> {
  const row = await db
    .selectFrom("idempotency_keys")
    .select("status_id")
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .where("created_at", ">=", since)
    .executeTakeFirst();
  return row?.status_id ?? null;
}

export async function rememberIdempotencyKey(
  db: Kysely<Database>,
  accountId: string,
  key: string,
  statusId: string,
  now: string,
): Promise<void> {
  await db
    .insertInto("idempotency_keys")
    .values({ account_id: accountId, key, status_id: statusId, created_at: now })
    .onConflict((oc) => oc.columns(["account_id", "key"]).doUpdateSet({ status_id: statusId, created_at: now }))
    .execute();
}

/**
 * Removes statuses and every row that refers to them, boosts of them included,
 * in the caller's transaction. Returns the boosts that went with them.
 */
export async function deleteStatusRows(db: Kysely<Database>, ids: readonly string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  const boosts = await db.selectFrom("statuses").selectAll().where("reblog_of_id", "in", ids).execute();
  const all = [...ids, ...boosts.map((row) => row.id)];
  const pollIds = (await db.selectFrom("polls").select("id").where("status_id", "in", all).execute()).map((row) => row.id);
  if (pollIds.length > 0) await db.deleteFrom("poll_votes").where("poll_id", "in", pollIds).execute();
  await db.deleteFrom("polls").where("status_id", "in", all).execute();
  for (const table of [
    "favourites",
    "bookmarks",
    "status_pins",
    "status_subscriptions",
    "status_edits",
    "mentions",
    "status_tags",
    "home_feed",
    "notifications",
    "filter_statuses",
  ] as const) {
    await db.deleteFrom(table).where("status_id", "in", all).execute();
  }
  await db
    .deleteFrom("status_highlights")
    .where((eb) => eb.or([eb("status_id", "in", all), eb("root_status_id", "in", all)]))
    .execute();
  await db.updateTable("media_attachments").set({ status_id: null }).where("status_id", "in", all).execute();
  await forgetQuotes(db, ids);
  if (boosts.length > 0) {
    await db
      .deleteFrom("statuses")
      .where(
        "id",
        "in",
        boosts.map((row) => row.id),
      )
      .execute();
  }
  await db.deleteFrom("statuses").where("id", "in", ids).execute();
  return boosts;
}

/** Quotes of statuses about to go read as deleted; the statuses they quote count them no more. */
async function forgetQuotes(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
  await markQuotesDeleted(db, ids);
  const quoted = await db
    .selectFrom("statuses")
    .select("quote_id")
    .where("id", "in", ids)
    .where("quote_id", "is not", null)
    .where((eb) => eb.or([eb("quote_state", "=", "accepted"), eb("quote_state", "is", null)]))
    .execute();
  for (const { quote_id } of quoted) if (quote_id !== null) await bumpQuotesCount(db, quote_id, -1);
}

/** Ids of the ancestors of a status, nearest first, up to `limit`. */
export async function ancestorIds(db: Kysely<Database>, statusId: string, limit: number): Promise<string[]> {
  const result = await sql<{ id: string; depth: number }>`
    with recursive chain(id, parent, depth) as (
      select s.id, s.in_reply_to_id, 0 from statuses s where s.id = ${statusId}
      union all
      select p.id, p.in_reply_to_id, chain.depth + 1 from statuses p join chain on p.id = chain.parent
      where chain.depth < ${limit}
    )
    select id, depth from chain where depth > 0 order by depth
  `.execute(db);
  return result.rows.map((row) => row.id);
}

/** The replies below a status, depth first, each level in creation order, up to `limit`. */
export async function descendantIds(db: Kysely<Database>, statusId: string, limit: number): Promise<string[]> {
  const result = await sql<{ id: string; parent: string }>`
    with recursive tree(id, parent, depth) as (
      select s.id, s.in_reply_to_id, 1 from statuses s where s.in_reply_to_id = ${statusId}
      union all
      select c.id, c.in_reply_to_id, tree.depth + 1 from statuses c join tree on c.in_reply_to_id = tree.id
      where tree.depth < 256
    )
    select id, parent from tree limit ${limit}
  `.execute(db);
  const children = new Map<string, string[]>();
  for (const row of result.rows) {
    const list = children.get(row.parent) ?? [];
    list.push(row.id);
    children.set(row.parent, list);
  }
  const ordered: string[] = [];
  const walk = (id: string) => {
    for (const child of (children.get(id) ?? []).sort()) {
      ordered.push(child);
      walk(child);
    }
  };
  walk(statusId);
  return ordered;
}
