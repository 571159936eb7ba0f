import { type Kysely, sql } from "kysely";
import { isGroupAccountId } from "../../domain/accounts.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { AccountRow, Database, StatusRow, Visibility } from "../../ports/storage-schema.js";

/**
 * A local, unsuspended account by username (case-insensitive), as actors are
 * served. Not the account of one of Kith's groups: groups are not federated as actors yet, and
 * an actor would tell other servers (and anyone asking WebFinger) that a
 * secret group exists, and take follows that are not memberships.
 */
export async function findLocalActorAccount(db: Kysely<Database>, username: string): Promise<AccountRow | null> {
  const row = await db
    .selectFrom("accounts")
    .selectAll()
    .where("acct_key", "=", username.toLowerCase())
    .where("domain", "is", null)
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  // Told by its id (`isGroupAccountId`), not its actor type: a person's account may be served as a Group actor.
  return row && !isGroupAccountId(row.id) ? row : null;
}

export type FollowDirection = "followers" | "following";

export interface FollowPageItem {
  readonly followId: string;
  readonly account: Pick<AccountRow, "id" | "username" | "domain" | "uri" | "inbox_url" | "shared_inbox_url">;
}

/** One page of an account's followers or followings, newest follow first, before `beforeId` when given. */
export async function listFollowPage(
  db: Kysely<Database>,
  accountId: string,
  direction: FollowDirection,
  page: { readonly beforeId?: string; readonly limit: number },
): Promise<FollowPageItem[]> {
  const [own, other] =
    direction === "followers" ? (["target_account_id", "account_id"] as const) : (["account_id", "target_account_id"] as const);
  let query = db
    .selectFrom("follows")
    .innerJoin("accounts", "accounts.id", `follows.${other}`)
    .select([
      "follows.id as follow_id",
      "accounts.id",
      "accounts.username",
      "accounts.domain",
      "accounts.uri",
      "accounts.inbox_url",
      "accounts.shared_inbox_url",
    ])
    .where(`follows.${own}`, "=", accountId)
    .where("accounts.suspended_at", "is", null);
  if (page.beforeId !== undefined) query = query.where("follows.id", "<", page.beforeId);
  const rows = await query.orderBy("follows.id", "desc").limit(page.limit).execute();
  return rows.map((row) => ({
    followId: row.follow_id,
    account: {
      id: row.id,
      username: row.username,
      domain: row.domain,
      uri: row.uri,
      inbox_url: row.inbox_url,
      shared_inbox_url: row.shared_inbox_url,
    },
  }));
}

export async function countFollows(db: Kysely<Database>, accountId: string, direction: FollowDirection): Promise<number> {
  const own = direction === "followers" ? "target_account_id" : "account_id";
  const row = await db
    .selectFrom("follows")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where(own, "=", accountId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** A local account's statuses that its outbox shows (public and unlisted, boosts included), newest first. */
/** The visibilities an outbox lists: anyone's, and followers-only ones too for a follower's fetch. */
function outboxVisibilities(withFollowersOnly: boolean): Visibility[] {
  return withFollowersOnly ? ["public", "unlisted", "private"] : ["public", "unlisted"];
}

export async function listOutboxStatuses(
  db: Kysely<Database>,
  accountId: string,
  page: { readonly beforeId?: string; readonly limit: number; readonly withFollowersOnly?: boolean },
): Promise<StatusRow[]> {
  let query = db
    .selectFrom("statuses")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("visibility", "in", outboxVisibilities(page.withFollowersOnly ?? false));
  if (page.beforeId !== undefined) query = query.where("id", "<", page.beforeId);
  return query.orderBy("id", "desc").limit(page.limit).execute();
}

export async function countOutboxStatuses(db: Kysely<Database>, accountId: string, withFollowersOnly = false): Promise<number> {
  const row = await db
    .selectFrom("statuses")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("account_id", "=", accountId)
    .where("visibility", "in", outboxVisibilities(withFollowersOnly))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The account's pinned statuses that anyone may see, most recently pinned first. */
export async function listFeaturedStatuses(db: Kysely<Database>, accountId: string): Promise<StatusRow[]> {
  return db
    .selectFrom("status_pins")
    .innerJoin("statuses", "statuses.id", "status_pins.status_id")
    .selectAll("statuses")
    .where("status_pins.account_id", "=", accountId)
    .where("statuses.visibility", "in", ["public", "unlisted"])
    .orderBy("status_pins.id", "desc")
    .limit(100)
    .execute();
}

/**
 * A status by the local account of `username` (which is not suspended), in one statement; null when there is none.
 * The author is a scalar subquery, so SQLite finds the status by its key first (as a join it went through the
 * author's statuses instead: 52 µs against 5 µs on the small benchmark dataset).
 */
export async function findStatusOfLocalActor(db: Kysely<Database>, username: string, statusId: string): Promise<StatusRow | null> {
  return (await selectStatusOfLocalActor(db, { acctKey: username.toLowerCase(), statusId }))[0] ?? null;
}

// Compiled once: every like, boost and reply an inbox takes finds its local status here.
const selectStatusOfLocalActor = compiledOnce((db, args: { acctKey: string; statusId: string }) => {
  const author = db
    .selectFrom("accounts")
    .select("accounts.id")
    .where("accounts.acct_key", "=", args.acctKey)
    .where("accounts.domain", "is", null)
    .where("accounts.suspended_at", "is", null);
  return db.selectFrom("statuses").selectAll().where("id", "=", args.statusId).where("account_id", "=", author);
});

export async function findStatusOf(db: Kysely<Database>, accountId: string, statusId: string): Promise<StatusRow | null> {
  const row = await db.selectFrom("statuses").selectAll().where("id", "=", statusId).where("account_id", "=", accountId).executeTakeFirst();
  return row ?? null;
}

export async function findStatusesByIds(db: Kysely<Database>, ids: readonly string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("statuses")
    .selectAll()
    .where("id", "in", [...ids])
    .execute();
}

export interface MentionTarget {
  readonly statusId: string;
  readonly account: Pick<AccountRow, "id" | "username" | "domain" | "uri">;
}

export async function listMentionTargets(db: Kysely<Database>, statusIds: readonly string[]): Promise<MentionTarget[]> {
  if (statusIds.length === 0) return [];
  const rows = await db
    .selectFrom("mentions")
    .innerJoin("accounts", "accounts.id", "mentions.account_id")
    .select(["mentions.status_id", "accounts.id", "accounts.username", "accounts.domain", "accounts.uri"])
    .where("mentions.status_id", "in", [...statusIds])
    .execute();
  return rows.map((row) => ({
    statusId: row.status_id,
    account: { id: row.id, username: row.username, domain: row.domain, uri: row.uri },
  }));
}

export interface UsageCounts {
  readonly users: number;
  readonly activeMonth: number;
  readonly activeHalfyear: number;
  readonly localStatuses: number;
}

/** NodeInfo's usage: local accounts, those that posted in the last 30 and 180 days, and local statuses. */
export async function countUsage(db: Kysely<Database>, now: Date): Promise<UsageCounts> {
  const month = new Date(now.getTime() - 30 * 86_400_000).toISOString();
  const halfyear = new Date(now.getTime() - 180 * 86_400_000).toISOString();
  const accounts = await db
    .selectFrom("accounts")
    .select((eb) => [
      eb.fn.countAll<number | string>().as("users"),
      eb.fn.sum<number | string | null>(sql`case when last_status_at >= ${month} then 1 else 0 end`).as("month"),
      eb.fn.sum<number | string | null>(sql`case when last_status_at >= ${halfyear} then 1 else 0 end`).as("halfyear"),
    ])
    .where("domain", "is", null)
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  const posts = await db
    .selectFrom("statuses")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where(sql<boolean>`local = ${true}`)
    .where("reblog_of_id", "is", null)
    .executeTakeFirst();
  return {
    users: Number(accounts?.users ?? 0),
    activeMonth: Number(accounts?.month ?? 0),
    activeHalfyear: Number(accounts?.halfyear ?? 0),
    localStatuses: Number(posts?.count ?? 0),
  };
}

/** What names the accounts as actors (their id, username, domain and uri), suspended ones left out. */
export async function unsuspendedActors(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Pick<AccountRow, "id" | "username" | "domain" | "uri">[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("accounts")
    .select(["id", "username", "domain", "uri"])
    .where("id", "in", [...ids])
    .where("suspended_at", "is", null)
    .execute();
}
