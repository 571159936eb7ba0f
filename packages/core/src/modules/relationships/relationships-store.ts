import { type Insertable, type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { AccountsTable, Database, FollowRequestsTable, FollowsTable, MutesTable } from "../../ports/storage-schema.js";

/**
 * Follows, follow requests, blocks, mutes, user domain blocks and notes: the
 * statements behind the relationship services, each on the pair indexes of
 * migration 0005 and each taking the connection or transaction to run on.
 */

/** The columns a follow and a request to follow share. */
export type FollowRow = Selectable<FollowRequestsTable>;
export type MuteRow = Selectable<MutesTable>;
type Db = Kysely<Database>;
type PairTable = "follows" | "follow_requests" | "blocks" | "mutes";

/**
 * `follows.follower_local` for a follow by `followerId`, read in the insert's
 * own statement: an account is local or remote for its whole life, so this
 * is written once, whichever path makes the follow.
 */
export function followerIsLocal(followerId: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from accounts where id = ${followerId} and domain is null)`;
}

/**
 * That a row of `follows` (under the name `table`) has a local follower, or
 * a remote one: the second column of the followers' index (migration 0022),
 * as an equality with a constant written into the text, so that each engine
 * reads that index alone and PostgreSQL's generic plan knows the value.
 */
export function followerLocality(table: string, local: boolean): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(`${table}.follower_local`)} = ${sql.lit(local)}`;
}

export async function findPair(
  db: Db,
  table: "follows" | "follow_requests",
  accountId: string,
  targetId: string,
): Promise<FollowRow | undefined> {
  return db.selectFrom(table).selectAll().where("account_id", "=", accountId).where("target_account_id", "=", targetId).executeTakeFirst();
}

export async function pairExists(db: Db, table: PairTable, accountId: string, targetId: string): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select("account_id")
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What bars a new follow of `targetId` by `followerId`: a block either way or
 * the target's block of the follower's domain ("blocked"), or the follower's
 * own block of the target's domain ("domain_blocked"); null when nothing does.
 * Local follows and follows arriving from other servers both ask this.
 */
export async function followBarrier(db: Db, followerId: string, targetId: string): Promise<"blocked" | "domain_blocked" | null> {
  if ((await pairExists(db, "blocks", followerId, targetId)) || (await pairExists(db, "blocks", targetId, followerId))) return "blocked";
  const accounts = await db.selectFrom("accounts").select(["id", "domain"]).where("id", "in", [followerId, targetId]).execute();
  const domainOf = (id: string): string | null => accounts.find((account) => account.id === id)?.domain ?? null;
  const blocksDomain = async (accountId: string, domain: string | null): Promise<boolean> =>
    domain !== null &&
    (await db
      .selectFrom("account_domain_blocks")
      .select("id")
      .where("account_id", "=", accountId)
      .where("domain", "=", domain)
      .executeTakeFirst()) !== undefined;
  if (await blocksDomain(targetId, domainOf(followerId))) return "blocked";
  if (await blocksDomain(followerId, domainOf(targetId))) return "domain_blocked";
  return null;
}

export async function deletePair(db: Db, table: PairTable, accountId: string, targetId: string): Promise<boolean> {
  const result = await db
    .deleteFrom(table)
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A block of `targetId` by `accountId`; blocking again changes nothing. */
export async function insertBlock(db: Db, row: { id: string; accountId: string; targetId: string; now: string }): Promise<void> {
  await db
    .insertInto("blocks")
    .values({ id: row.id, account_id: row.accountId, target_account_id: row.targetId, uri: null, created_at: row.now })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
    .execute();
}

/** A mute, or the new options and end of an existing one. */
export async function upsertMute(
  db: Db,
  row: { id: string; accountId: string; targetId: string; hideNotifications: boolean; expiresAt: string | null; now: string },
): Promise<void> {
  await db
    .insertInto("mutes")
    .values({
      id: row.id,
      account_id: row.accountId,
      target_account_id: row.targetId,
      hide_notifications: writeFlag(row.hideNotifications),
      expires_at: row.expiresAt,
      created_at: row.now,
      updated_at: row.now,
    })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "target_account_id"])
        .doUpdateSet({ hide_notifications: row.hideNotifications, expires_at: row.expiresAt, updated_at: row.now }),
    )
    .execute();
}

/** What a follow needs to know of the account to be followed, or undefined when there is none. */
export async function findFollowTarget(
  db: Db,
  targetId: string,
): Promise<Pick<Selectable<AccountsTable>, "id" | "domain" | "locked" | "suspended_at"> | undefined> {
  return db.selectFrom("accounts").select(["id", "domain", "locked", "suspended_at"]).where("id", "=", targetId).executeTakeFirst();
}

/** The options a follower chose, changed on an existing follow or request. */
export type FollowOptionColumns = Partial<Pick<Insertable<FollowsTable>, "show_reblogs" | "notify" | "languages">>;

export async function updateFollowOptions(
  db: Db,
  table: "follows" | "follow_requests",
  followerId: string,
  targetId: string,
  changes: FollowOptionColumns,
  now: string,
): Promise<void> {
  await db
    .updateTable(table)
    .set({ ...changes, updated_at: now })
    .where("account_id", "=", followerId)
    .where("target_account_id", "=", targetId)
    .execute();
}

/** A follow or a request to follow, as the row both tables share (without its id and the follow's locality). */
export type NewFollowRow = Omit<Insertable<FollowRequestsTable>, "id">;

export async function insertFollowRequest(db: Db, id: string, row: NewFollowRow): Promise<void> {
  await db
    .insertInto("follow_requests")
    .values({ ...row, id })
    .execute();
}

/** A follow, its follower's locality read in the same statement; the counters are the caller's to move. */
export async function insertFollow(db: Db, id: string, row: NewFollowRow): Promise<void> {
  await db
    .insertInto("follows")
    .values({ ...row, id, follower_local: followerIsLocal(row.account_id) })
    .execute();
}

/** Moves the two counters a follow changes, in the caller's transaction, so they never drift from the rows. */
export async function adjustFollowCounters(db: Db, followerId: string, followedId: string, delta: 1 | -1): Promise<void> {
  await db
    .updateTable("accounts")
    .set({ following_count: sql`following_count + ${delta}` })
    .where("id", "=", followerId)
    .execute();
  await db
    .updateTable("accounts")
    .set({ followers_count: sql`followers_count + ${delta}` })
    .where("id", "=", followedId)
    .execute();
}

/** Removes a follow and its counters; true when there was one. */
export async function removeFollow(db: Db, followerId: string, followedId: string): Promise<boolean> {
  const removed = await deletePair(db, "follows", followerId, followedId);
  if (removed) await adjustFollowCounters(db, followerId, followedId, -1);
  return removed;
}

/** The rows between a viewer and many accounts, in one query per table. */
export interface RelationshipRows {
  readonly following: Map<string, FollowRow>;
  readonly followedBy: Set<string>;
  readonly requested: Map<string, FollowRow>;
  readonly requestedBy: Set<string>;
  readonly blocking: Set<string>;
  readonly blockedBy: Set<string>;
  readonly muting: Map<string, MuteRow>;
  readonly domainBlocking: Set<string>;
  readonly notes: Map<string, string>;
  readonly domains: Map<string, string | null>;
}

export async function loadRelationshipRows(db: Db, viewerId: string, targetIds: readonly string[], now: string): Promise<RelationshipRows> {
  const outgoing = (table: "follows" | "follow_requests") =>
    db.selectFrom(table).selectAll().where("account_id", "=", viewerId).where("target_account_id", "in", targetIds).execute();
  const incoming = (table: "follows" | "follow_requests" | "blocks") =>
    db.selectFrom(table).select("account_id").where("target_account_id", "=", viewerId).where("account_id", "in", targetIds).execute();
  const [following, followedBy, requested, requestedBy, blocking, blockedBy, muting, domains, domainBlocks, notes] = await Promise.all([
    outgoing("follows"),
    incoming("follows"),
    outgoing("follow_requests"),
    incoming("follow_requests"),
    db
      .selectFrom("blocks")
      .select("target_account_id")
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", targetIds)
      .execute(),
    incoming("blocks"),
    db
      .selectFrom("mutes")
      .selectAll()
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", targetIds)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .execute(),
    db.selectFrom("accounts").select(["id", "domain"]).where("id", "in", targetIds).execute(),
    db.selectFrom("account_domain_blocks").select("domain").where("account_id", "=", viewerId).execute(),
    db
      .selectFrom("account_notes")
      .select(["target_account_id", "comment"])
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", targetIds)
      .execute(),
  ]);
  const blockedDomains = new Set(domainBlocks.map((row) => row.domain));
  return {
    following: new Map(following.map((row) => [row.target_account_id, row])),
    followedBy: new Set(followedBy.map((row) => row.account_id)),
    requested: new Map(requested.map((row) => [row.target_account_id, row])),
    requestedBy: new Set(requestedBy.map((row) => row.account_id)),
    blocking: new Set(blocking.map((row) => row.target_account_id)),
    blockedBy: new Set(blockedBy.map((row) => row.account_id)),
    muting: new Map(muting.map((row) => [row.target_account_id, row])),
    domainBlocking: new Set(domains.filter((row) => row.domain !== null && blockedDomains.has(row.domain)).map((row) => row.id)),
    notes: new Map(notes.map((row) => [row.target_account_id, row.comment])),
    domains: new Map(domains.map((row) => [row.id, row.domain])),
  };
}

/** One page of a list of accounts keyed by the relationship row's id (Mastodon pages these by that id). */
export interface RelationshipPageEntry {
  readonly id: string;
  readonly accountId: string;
  readonly expiresAt?: string | null;
}

/** Followers (`side` = "followers") or followed accounts of an account, suspended accounts left out. */
export async function followPage(
  db: Db,
  accountId: string,
  side: "followers" | "following",
  page: PageRequest,
): Promise<RelationshipPageEntry[]> {
  const [own, other] =
    side === "followers" ? (["target_account_id", "account_id"] as const) : (["account_id", "target_account_id"] as const);
  const rows = await fetchIdPage(
    db
      .selectFrom("follows")
      .innerJoin("accounts", "accounts.id", `follows.${other}`)
      .select(["follows.id as id", `follows.${other} as other`])
      .where(`follows.${own}`, "=", accountId)
      .where("accounts.suspended_at", "is", null),
    "follows.id",
    page,
  );
  return rows.map((row) => ({ id: row.id, accountId: row.other }));
}

/** How many accounts ask to follow an account. */
export async function countIncomingFollowRequests(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("follow_requests")
    .select((eb) => eb.fn.countAll<number | string>().as("count"))
    .where("target_account_id", "=", accountId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Pending requests to follow an account, newest first. */
export async function incomingRequestPage(db: Db, accountId: string, page: PageRequest): Promise<RelationshipPageEntry[]> {
  const rows = await fetchIdPage(
    db.selectFrom("follow_requests").select(["id", "account_id"]).where("target_account_id", "=", accountId),
    "id",
    page,
  );
  return rows.map((row) => ({ id: row.id, accountId: row.account_id }));
}

export async function blockPage(db: Db, accountId: string, page: PageRequest): Promise<RelationshipPageEntry[]> {
  const rows = await fetchIdPage(
    db.selectFrom("blocks").select(["id", "target_account_id"]).where("account_id", "=", accountId),
    "id",
    page,
  );
  return rows.map((row) => ({ id: row.id, accountId: row.target_account_id }));
}

/** Mutes still in force, with when each ends. */
export async function mutePage(db: Db, accountId: string, page: PageRequest, now: string): Promise<RelationshipPageEntry[]> {
  const rows = await fetchIdPage(
    db
      .selectFrom("mutes")
      .select(["id", "target_account_id", "expires_at"])
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)])),
    "id",
    page,
  );
  return rows.map((row) => ({ id: row.id, accountId: row.target_account_id, expiresAt: row.expires_at }));
}

export async function domainBlockPage(db: Db, accountId: string, page: PageRequest): Promise<{ id: string; domain: string }[]> {
  return fetchIdPage(db.selectFrom("account_domain_blocks").select(["id", "domain"]).where("account_id", "=", accountId), "id", page);
}

/** Every domain a user blocks, by name. */
export async function blockedDomains(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("account_domain_blocks")
    .select("domain")
    .where("account_id", "=", accountId)
    .orderBy("domain")
    .execute();
  return rows.map((row) => row.domain);
}

/** A user's block of a domain; true when it is new. */
export async function insertDomainBlock(db: Db, row: { id: string; accountId: string; domain: string; now: string }): Promise<boolean> {
  const inserted = await db
    .insertInto("account_domain_blocks")
    .values({ id: row.id, account_id: row.accountId, domain: row.domain, created_at: row.now })
    .onConflict((oc) => oc.columns(["account_id", "domain"]).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes a user's block of a domain; true when there was one. */
export async function deleteDomainBlock(db: Db, accountId: string, domain: string): Promise<boolean> {
  const result = await db
    .deleteFrom("account_domain_blocks")
    .where("account_id", "=", accountId)
    .where("domain", "=", domain)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Removes every follower of `accountId` on `domain` (on any port of it) with
 * the counters, and their pending requests; the removed follows are returned
 * (with their Follow's id), so that their servers can be told.
 */
export async function removeFollowersOnDomain(
  db: Db,
  accountId: string,
  domain: string,
): Promise<{ account_id: string; uri: string | null }[]> {
  const ofDomain = db
    .selectFrom("accounts")
    .select("id")
    .where((eb) => eb.or([eb("domain", "=", domain), eb("domain", "like", `${domain}:%`)]));
  const followers = await db
    .selectFrom("follows")
    .select(["follows.account_id", "follows.uri"])
    .where("follows.target_account_id", "=", accountId)
    .where("follows.account_id", "in", ofDomain)
    .execute();
  for (const { account_id } of followers) await removeFollow(db, account_id, accountId);
  await db.deleteFrom("follow_requests").where("target_account_id", "=", accountId).where("account_id", "in", ofDomain).execute();
  return followers;
}

/** The viewer's private note on an account: set, or removed when `comment` is empty. */
export async function writeNote(db: Db, viewerId: string, targetId: string, comment: string, now: string): Promise<void> {
  if (comment === "") {
    await db.deleteFrom("account_notes").where("account_id", "=", viewerId).where("target_account_id", "=", targetId).execute();
    return;
  }
  await db
    .insertInto("account_notes")
    .values({ account_id: viewerId, target_account_id: targetId, comment, updated_at: now })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doUpdateSet({ comment, updated_at: now }))
    .execute();
}

/** Of these accounts, the ones that exist (and, unless asked, are not suspended). */
export async function existingAccountIds(db: Db, ids: readonly string[], options: { withSuspended?: boolean } = {}): Promise<Set<string>> {
  let query = db.selectFrom("accounts").select("id").where("id", "in", ids);
  if (!options.withSuspended) query = query.where("suspended_at", "is", null);
  return new Set((await query.execute()).map((row) => row.id));
}

/** Whether an account hides whom it follows and who follows it, and whether it is suspended; undefined when there is none. */
export async function findCollectionPrivacy(
  db: Db,
  accountId: string,
): Promise<Pick<Selectable<AccountsTable>, "hide_collections" | "suspended_at"> | undefined> {
  return db.selectFrom("accounts").select(["hide_collections", "suspended_at"]).where("id", "=", accountId).executeTakeFirst();
}

/** For each target, the accounts the viewer follows that also follow it. */
export async function familiarFollowers(db: Db, viewerId: string, targetIds: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom("follows as mine")
    .innerJoin("follows as theirs", "theirs.account_id", "mine.target_account_id")
    .innerJoin("accounts", "accounts.id", "mine.target_account_id")
    .select(["theirs.target_account_id as target", "mine.target_account_id as follower"])
    .where("mine.account_id", "=", viewerId)
    .where("theirs.target_account_id", "in", targetIds)
    .where("accounts.suspended_at", "is", null)
    .orderBy("mine.id", "desc")
    .execute();
  const result = new Map<string, string[]>(targetIds.map((id) => [id, []]));
  for (const row of rows) result.get(row.target)?.push(row.follower);
  return result;
}
