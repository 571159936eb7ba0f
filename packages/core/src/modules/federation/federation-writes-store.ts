import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import { type Kysely, sql } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { AccountRow, Database, StatusRow } from "../../ports/storage-schema.js";
import { joinedReads } from "../../platform/storage/joined-reads.js";
import { live } from "../../platform/federation/federation-kv.js";
import { followerIsLocal } from "../relationships/relationships-store.js";

/** What Kith keeps of a remote actor in `accounts`. */
export interface RemoteActorFields {
  readonly uri: string;
  readonly username: string;
  /** The actor's host (with its port when not the default). */
  readonly domain: string;
  readonly displayName: string;
  readonly note: string;
  readonly actorType: string;
  readonly locked: boolean;
  readonly discoverable: boolean;
  readonly url: string | null;
  readonly inboxUrl: string | null;
  readonly sharedInboxUrl: string | null;
  /** Actor URIs it says it also is (`alsoKnownAs`), which a Move to it must name. */
  readonly alsoKnownAs?: readonly string[];
}

export async function findAccountByUri(db: Kysely<Database>, uri: string): Promise<AccountRow | null> {
  return (await selectAccountByUri(db, { uri }))[0] ?? null;
}

// Compiled once: every activity an inbox takes looks its actor up here.
const selectAccountByUri = compiledOnce((db, args: { uri: string }) => db.selectFrom("accounts").selectAll().where("uri", "=", args.uri));

/** A local post as an incoming Like's listener checks it. */
export type LikedLocalPost = Pick<StatusRow, "id" | "account_id" | "reblog_of_id" | "visibility" | "local">;

/** What an incoming activity's listener checks of the one id it is about, read with its sender. */
export interface SenderWithChecks {
  readonly account: AccountRow;
  /** Whether the `federation_kv` entry asked for (the id's tombstone) is live. */
  readonly entryLive: boolean;
  /** The status stored under the id, if any. */
  readonly postId: string | null;
  /** The local status asked for (`localStatus`), if it is stored and its author is not suspended; undefined when none was asked for. */
  readonly localStatus?: LikedLocalPost | null;
}

/** One of our statuses, by its author's username as its URI names it and its id. */
export interface LocalStatusKey {
  readonly username: string;
  readonly statusId: string;
}

/** What `findSenderWithChecks` is asked. */
export interface SenderChecks {
  readonly actorUri: string;
  readonly entryKey: string;
  readonly postUri: string;
  readonly now: string;
  readonly localStatus?: LocalStatusKey;
}

/**
 * The account at `actorUri`, whether the `federation_kv` entry `entryKey` is
 * live, and the status stored at `postUri`: an incoming activity's sender and
 * what its listener checks (a tombstone, a status already stored), in one
 * statement instead of three round trips on PostgreSQL. With `localStatus`, the
 * local post a Like is of as well, a round trip less again. Null when no
 * account is stored at `actorUri`: the checks' answers are then not told.
 * Reads asked at the same moment are joined where that pays (joined-reads.ts):
 * a busy inbox asks several at once.
 */
export const findSenderWithChecks: (db: Kysely<Database>, args: SenderChecks) => Promise<SenderWithChecks | null> = joinedReads({
  perStatement: 32,
  group: () => "",
  one: findOneSender,
  many: findSenders,
});

async function findOneSender(db: Kysely<Database>, args: SenderChecks): Promise<SenderWithChecks | null> {
  const { localStatus, ...checks } = args;
  if (localStatus === undefined) {
    const [row] = await selectSenderWithChecks(db, checks);
    return row ? senderWithChecksOf(row, false) : null;
  }
  const [row] = await selectSenderWithLocalPost(db, { ...checks, acctKey: localStatus.username.toLowerCase(), statusId: localStatus.statusId });
  return row ? senderWithChecksOf(row, true) : null;
}

/**
 * Several reads in one statement, each read's answer in its place. They share the latest of their `now`s: the
 * moment the statement runs, a few milliseconds after the first was asked.
 */
async function findSenders(db: Kysely<Database>, asked: readonly SenderChecks[]): Promise<(SenderWithChecks | null)[]> {
  const rows = await selectSendersWithChecks(db, {
    actorUris: asked.map((args) => args.actorUri),
    entryKeys: asked.map((args) => args.entryKey),
    postUris: asked.map((args) => args.postUri),
    acctKeys: asked.map((args) => args.localStatus?.username.toLowerCase() ?? null),
    statusIds: asked.map((args) => args.localStatus?.statusId ?? null),
    now:
      asked
        .map((args) => args.now)
        .sort()
        .at(-1) ?? "",
  });
  const byPlace = new Map(rows.map(({ place, ...row }) => [Number(place), row]));
  return asked.map((args, place) => {
    const row = byPlace.get(place);
    return row ? senderWithChecksOf(row, args.localStatus !== undefined) : null;
  });
}

/** The columns a sender read adds to the account's row. */
interface CheckColumns {
  readonly entry_live: unknown;
  readonly post_id: string | null;
  readonly liked_id?: string | null;
  readonly liked_account_id?: string | null;
  readonly liked_reblog_of_id?: string | null;
  readonly liked_visibility?: StatusRow["visibility"] | null;
  readonly liked_local?: StatusRow["local"] | null;
}

function senderWithChecksOf(row: AccountRow & CheckColumns, likedAsked: boolean): SenderWithChecks {
  const { entry_live, post_id, liked_id, liked_account_id, liked_reblog_of_id, liked_visibility, liked_local, ...account } = row;
  const checks = { account, entryLive: Boolean(entry_live), postId: post_id ?? null };
  if (!likedAsked) return checks;
  const liked =
    liked_id != null && liked_account_id != null && liked_visibility != null && liked_local != null
      ? {
          id: liked_id,
          account_id: liked_account_id,
          reblog_of_id: liked_reblog_of_id ?? null,
          visibility: liked_visibility,
          local: liked_local,
        }
      : null;
  return { ...checks, localStatus: liked };
}

type SenderChecksArgs = { actorUri: string; entryKey: string; postUri: string; now: string };

function senderWithChecks(db: Kysely<Database>, args: SenderChecksArgs) {
  return db
    .selectFrom("accounts")
    .selectAll("accounts")
    .select((eb) => [
      eb
        .exists(
          eb.selectFrom("federation_kv").select("federation_kv.key").where("federation_kv.key", "=", args.entryKey).where(live(args.now)),
        )
        .as("entry_live"),
      eb.selectFrom("statuses").select("statuses.id").where("statuses.uri", "=", args.postUri).as("post_id"),
    ])
    .where("accounts.uri", "=", args.actorUri);
}

// The checks' subqueries do not depend on the account's row: both engines run each once.
const selectSenderWithChecks = compiledOnce(senderWithChecks);

// The liked status is joined, not a subquery a column: its columns come from one probe of its key.
const selectSenderWithLocalPost = compiledOnce((db, args: SenderChecksArgs & { acctKey: string; statusId: string }) =>
  senderWithChecks(db, args)
    .leftJoin("statuses as liked", (join) =>
      join
        .on("liked.id", "=", args.statusId)
        .on(
          "liked.account_id",
          "=",
          db
            .selectFrom("accounts as author")
            .select("author.id")
            .where("author.acct_key", "=", args.acctKey)
            .where("author.domain", "is", null)
            .where("author.suspended_at", "is", null),
        ),
    )
    .select([
      "liked.id as liked_id",
      "liked.account_id as liked_account_id",
      "liked.reblog_of_id as liked_reblog_of_id",
      "liked.visibility as liked_visibility",
      "liked.local as liked_local",
    ]),
);

/** Several reads as `selectSendersWithChecks` takes them: a list per value, in the reads' order, and one `now`. */
type SendersChecksArgs = {
  readonly actorUris: readonly string[];
  readonly entryKeys: readonly string[];
  readonly postUris: readonly string[];
  readonly acctKeys: readonly (string | null)[];
  readonly statusIds: readonly (string | null)[];
  readonly now: string;
};

// Each read is a row of `asked`, numbered by its place; a read that asks for no local status joins none.
const selectSendersWithChecks = compiledOnce((db, args: SendersChecksArgs) =>
  db
    .with(
      "asked(place, actor_uri, entry_key, post_uri, acct_key, status_id)",
      () =>
        sql<{
          place: number;
          actor_uri: string;
          entry_key: string;
          post_uri: string;
          acct_key: string | null;
          status_id: string | null;
        }>`(values ${sql.join(
          args.actorUris.map(
            (uri, i) =>
              sql`(${sql.lit(i)}, ${uri}, ${args.entryKeys[i] ?? null}, ${args.postUris[i] ?? null}, ${args.acctKeys[i] ?? null}, ${args.statusIds[i] ?? null})`,
          ),
        )})`,
    )
    .selectFrom("asked")
    .innerJoin("accounts", "accounts.uri", "asked.actor_uri")
    .leftJoin("statuses as liked", (join) =>
      join
        .onRef("liked.id", "=", "asked.status_id")
        .on("liked.account_id", "=", (eb) =>
          eb
            .selectFrom("accounts as author")
            .select("author.id")
            .whereRef("author.acct_key", "=", "asked.acct_key")
            .where("author.domain", "is", null)
            .where("author.suspended_at", "is", null),
        ),
    )
    .selectAll("accounts")
    .select((eb) => [
      "asked.place",
      eb
        .exists(
          eb
            .selectFrom("federation_kv")
            .select("federation_kv.key")
            .whereRef("federation_kv.key", "=", "asked.entry_key")
            .where(live(args.now)),
        )
        .as("entry_live"),
      eb.selectFrom("statuses").select("statuses.id").whereRef("statuses.uri", "=", "asked.post_uri").as("post_id"),
      "liked.id as liked_id",
      "liked.account_id as liked_account_id",
      "liked.reblog_of_id as liked_reblog_of_id",
      "liked.visibility as liked_visibility",
      "liked.local as liked_local",
    ]),
);

/** Inserts the remote actor or refreshes its row (matched by URI); returns the row. */
export async function upsertRemoteAccount(db: Kysely<Database>, id: string, actor: RemoteActorFields, now: string): Promise<AccountRow> {
  const changes = {
    display_name: actor.displayName,
    note: actor.note,
    actor_type: actor.actorType,
    locked: actor.locked,
    discoverable: actor.discoverable,
    url: actor.url,
    inbox_url: actor.inboxUrl,
    shared_inbox_url: actor.sharedInboxUrl,
    ...(actor.alsoKnownAs && { also_known_as: JSON.stringify(actor.alsoKnownAs) }),
    updated_at: now,
  };
  const existing = await findAccountByUri(db, actor.uri);
  if (existing) {
    await db.updateTable("accounts").set(changes).where("id", "=", existing.id).execute();
  } else {
    await db
      .insertInto("accounts")
      .values({
        id,
        username: actor.username,
        domain: actor.domain,
        acct_key: `${actor.username.toLowerCase()}@${actor.domain}`,
        uri: actor.uri,
        created_at: now,
        suspended_at: null,
        silenced_at: null,
        sensitized_at: null,
        avatar_media_id: null,
        header_media_id: null,
        avatar_remote_url: null,
        header_remote_url: null,
        last_status_at: null,
        moved_to_account_id: null,
        ...changes,
      })
      .onConflict((oc) => oc.column("uri").doNothing())
      .execute();
  }
  const row = await findAccountByUri(db, actor.uri);
  if (!row) throw new Error(`The account of ${actor.uri} could not be stored`);
  return row;
}

export interface FollowRow {
  readonly id: string;
  readonly accountId: string;
  readonly targetAccountId: string;
  readonly uri: string | null;
  /** What the follower chose when asking (boosts, notifications, languages), kept when the request becomes a follow. */
  readonly options?: { readonly show_reblogs: boolean; readonly notify: boolean; readonly languages: string | null };
}

/** Records a follow and counts it on both accounts; false (and nothing changed) when it existed. */
export async function insertFollow(db: Kysely<Database>, follow: FollowRow, now: string): Promise<boolean> {
  const result = await db
    .insertInto("follows")
    .values({
      id: follow.id,
      account_id: follow.accountId,
      target_account_id: follow.targetAccountId,
      follower_local: followerIsLocal(follow.accountId),
      show_reblogs: writeFlag(follow.options?.show_reblogs ?? true),
      notify: writeFlag(follow.options?.notify ?? false),
      languages: follow.options?.languages ?? null,
      uri: follow.uri,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
  await db.updateTable("accounts").set({ following_count: sql`following_count + 1` }).where("id", "=", follow.accountId).execute();
  await db.updateTable("accounts").set({ followers_count: sql`followers_count + 1` }).where("id", "=", follow.targetAccountId).execute();
  return true;
}

/** Removes a follow and uncounts it; false when there was none. */
export async function deleteFollow(db: Kysely<Database>, accountId: string, targetAccountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("follows")
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetAccountId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await db
    .updateTable("accounts")
    .set({ following_count: sql`case when following_count > 0 then following_count - 1 else 0 end` })
    .where("id", "=", accountId)
    .execute();
  await db
    .updateTable("accounts")
    .set({ followers_count: sql`case when followers_count > 0 then followers_count - 1 else 0 end` })
    .where("id", "=", targetAccountId)
    .execute();
  return true;
}

export async function insertFollowRequest(db: Kysely<Database>, request: FollowRow, now: string): Promise<boolean> {
  const result = await db
    .insertInto("follow_requests")
    .values({
      id: request.id,
      account_id: request.accountId,
      target_account_id: request.targetAccountId,
      languages: null,
      uri: request.uri,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Removes a follow request and returns it; null when there was none. */
export async function takeFollowRequest(db: Kysely<Database>, accountId: string, targetAccountId: string): Promise<FollowRow | null> {
  const row = await db
    .selectFrom("follow_requests")
    .select(["id", "account_id", "target_account_id", "uri", "show_reblogs", "notify", "languages"])
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetAccountId)
    .executeTakeFirst();
  if (!row) return null;
  await db.deleteFrom("follow_requests").where("id", "=", row.id).execute();
  const options = { show_reblogs: readFlag(row.show_reblogs), notify: readFlag(row.notify), languages: row.languages };
  return { id: row.id, accountId: row.account_id, targetAccountId: row.target_account_id, uri: row.uri, options };
}

/** The follow request (or follow) a Follow activity's URI made toward `targetAccountId`. */
export async function findFollowingByUri(
  db: Kysely<Database>,
  uri: string,
  targetAccountId: string,
): Promise<{ readonly accountId: string } | null> {
  const request = await db
    .selectFrom("follow_requests")
    .select("account_id")
    .where("uri", "=", uri)
    .where("target_account_id", "=", targetAccountId)
    .executeTakeFirst();
  if (request) return { accountId: request.account_id };
  const follow = await db
    .selectFrom("follows")
    .select("account_id")
    .where("uri", "=", uri)
    .where("target_account_id", "=", targetAccountId)
    .executeTakeFirst();
  return follow ? { accountId: follow.account_id } : null;
}

/**
 * A remote account whose server said it is deleted: marked suspended (so nothing of it is shown or accepted any
 * more), and the follows and follow requests it had either way dropped, counts kept right. False when it already was.
 */
export async function retireRemoteAccount(db: Kysely<Database>, accountId: string, now: string): Promise<boolean> {
  const marked = await db
    .updateTable("accounts")
    .set({ suspended_at: now, updated_at: now })
    .where("id", "=", accountId)
    .where("domain", "is not", null)
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) === 0) return false;
  const follows = await db
    .selectFrom("follows")
    .select(["account_id", "target_account_id"])
    .where((eb) => eb.or([eb("account_id", "=", accountId), eb("target_account_id", "=", accountId)]))
    .execute();
  for (const follow of follows) await deleteFollow(db, follow.account_id, follow.target_account_id);
  await db
    .deleteFrom("follow_requests")
    .where((eb) => eb.or([eb("account_id", "=", accountId), eb("target_account_id", "=", accountId)]))
    .execute();
  return true;
}
