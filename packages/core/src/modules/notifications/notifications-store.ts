import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { fencedSubquery } from "../../platform/storage/exists-fence.js";
import { readInSlices } from "../../platform/storage/id-slices.js";
import { idPageQuery } from "../../platform/storage/paginate-by-id.js";
import type { Database } from "../../ports/storage-schema.js";
import type { AccountVersionRow } from "../accounts/accounts-store.js";
import { notHiddenFrom } from "../relationships/hidden-authors-store.js";
import { notFromLimitedDomain } from "../domain-policy/limited-domains-store.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { literalLimit } from "../../platform/storage/literal-limit.js";

export interface NotificationRecord {
  readonly id: string;
  readonly recipientId: string;
  readonly fromAccountId: string;
  readonly type: string;
  readonly statusId: string | null;
  readonly groupKey: string;
  readonly readAt: string | null;
  readonly createdAt: string;
  /** Held back by the recipient's notification policy (a notification request's); absent: not. */
  readonly filtered?: boolean;
  /**
   * The sender's version and counters, when they were read with the
   * notification (a page of them): what the sender's render needs to know
   * whether its kept row is current, without reading it again.
   */
  readonly fromAccount?: AccountVersionRow;
}

/** Which notifications a list shows. */
export interface NotificationFilter {
  readonly types?: readonly string[];
  readonly excludeTypes?: readonly string[];
  readonly fromAccountId?: string;
  /** true: only read ones; false: only unread ones. */
  readonly read?: boolean;
}

const COLUMNS = ["id", "account_id", "from_account_id", "type", "status_id", "group_key", "read_at", "created_at"] as const;

type Row = {
  id: string;
  account_id: string;
  from_account_id: string;
  type: string;
  status_id: string | null;
  group_key: string;
  read_at: string | null;
  created_at: string;
};

function toRecord(row: Row): NotificationRecord {
  return {
    id: row.id,
    recipientId: row.account_id,
    fromAccountId: row.from_account_id,
    type: row.type,
    statusId: row.status_id,
    groupKey: row.group_key,
    readAt: row.read_at,
    createdAt: row.created_at,
  };
}

/** Notifications a policy held back are the requests', not the list's. */
const notFiltered = sql<boolean>`not notifications.filtered`;

function visibleNotifications(
  db: Kysely<Database>,
  recipientId: string,
  filter: NotificationFilter,
  now: string,
): SelectQueryBuilder<Database, "notifications", Row> {
  let query = db
    .selectFrom("notifications")
    .select(COLUMNS)
    .where("account_id", "=", recipientId)
    .where(notFiltered)
    .where(notHiddenFrom("notifications.from_account_id", recipientId, now, { mutes: "hiding_notifications" }));
  if (filter.types && filter.types.length > 0) query = query.where("type", "in", filter.types);
  if (filter.excludeTypes && filter.excludeTypes.length > 0) query = query.where("type", "not in", filter.excludeTypes);
  if (filter.fromAccountId) query = query.where("from_account_id", "=", filter.fromAccountId);
  if (filter.read === true) query = query.where("read_at", "is not", null);
  if (filter.read === false) query = query.where("read_at", "is", null);
  return query;
}

export async function pageNotifications(
  db: Kysely<Database>,
  recipientId: string,
  filter: NotificationFilter,
  now: string,
  page: PageRequest,
): Promise<NotificationRecord[]> {
  const rows = await selectNotificationPage(db, {
    recipientId,
    now,
    types: filter.types ?? [],
    excludeTypes: filter.excludeTypes ?? [],
    fromAccountId: filter.fromAccountId || undefined,
    read: filter.read === undefined ? -1 : filter.read ? 1 : 0,
    limit: page.limit,
    maxId: page.maxId,
    sinceId: page.sinceId,
    minId: page.minId,
  });
  return rows.map((row) => {
    const record = toRecord(row);
    if (row.sender_version === null || row.sender_statuses_count === null) return record;
    const fromAccount: AccountVersionRow = {
      id: row.from_account_id,
      version: row.sender_version,
      statuses_count: row.sender_statuses_count,
      followers_count: row.sender_followers_count ?? 0,
      following_count: row.sender_following_count ?? 0,
      last_status_at: row.sender_last_status_at,
    };
    return { ...record, fromAccount };
  });
}

/** A notification page's values as compiledOnce takes them: whether to filter by read is part of the shape. */
type NotificationPageArgs = {
  readonly recipientId: string;
  readonly now: string;
  readonly types: readonly string[];
  readonly excludeTypes: readonly string[];
  readonly fromAccountId: string | undefined;
  /** -1: any, 0: unread, 1: read. */
  readonly read: number;
  readonly limit: number;
  readonly maxId: string | undefined;
  readonly sinceId: string | undefined;
  readonly minId: string | undefined;
};

// Compiled once per shape: the hidden-accounts condition cost about as much to build as to run. The senders' versions
// are joined to the page rather than read after it: a round trip less on PostgreSQL. The page is taken in its own
// order (oldest first above `min_id`) and given newest first.
const selectNotificationPage = compiledOnce((db, args: NotificationPageArgs) => {
  const page = idPageQuery(
    visibleNotifications(
      db,
      args.recipientId,
      {
        types: args.types,
        excludeTypes: args.excludeTypes,
        ...(args.fromAccountId !== undefined && { fromAccountId: args.fromAccountId }),
        ...(args.read !== -1 && { read: args.read === 1 }),
      },
      args.now,
    ),
    "notifications.id",
    args,
  );
  return db
    .selectFrom(page.as("page"))
    .leftJoin("accounts as sender", "sender.id", "page.from_account_id")
    .selectAll("page")
    .select([
      "sender.version as sender_version",
      "sender.statuses_count as sender_statuses_count",
      "sender.followers_count as sender_followers_count",
      "sender.following_count as sender_following_count",
      "sender.last_status_at as sender_last_status_at",
    ])
    .orderBy("page.id", "desc");
});

export async function findNotification(
  db: Kysely<Database>,
  recipientId: string,
  id: string,
  now: string,
): Promise<NotificationRecord | null> {
  const row = await visibleNotifications(db, recipientId, {}, now).where("id", "=", id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** Every notification of one group, newest first, up to `limit`. */
export async function notificationsOfGroup(
  db: Kysely<Database>,
  recipientId: string,
  groupKey: string,
  now: string,
  limit: number,
): Promise<NotificationRecord[]> {
  const rows = await visibleNotifications(db, recipientId, {}, now)
    .where("group_key", "=", groupKey)
    .orderBy("id", "desc")
    .limit(literalLimit(limit))
    .execute();
  return rows.map(toRecord);
}

/** How many notifications each group holds, over all pages. */
export async function groupSizes(
  db: Kysely<Database>,
  recipientId: string,
  groupKeys: readonly string[],
  now: string,
): Promise<Map<string, number>> {
  if (groupKeys.length === 0) return new Map();
  const rows = await db
    .selectFrom("notifications")
    .select(["group_key", sql<number>`count(*)`.as("count")])
    .where("account_id", "=", recipientId)
    .where("group_key", "in", groupKeys)
    .where(notFiltered)
    .where(notHiddenFrom("notifications.from_account_id", recipientId, now, { mutes: "hiding_notifications" }))
    .groupBy("group_key")
    .execute();
  return new Map(rows.map((row) => [row.group_key, Number(row.count)]));
}

/** Unread notifications (or groups of them), counted up to `limit`. */
export async function countUnread(
  db: Kysely<Database>,
  recipientId: string,
  filter: NotificationFilter,
  now: string,
  limit: number,
  by: "notification" | "group",
): Promise<number> {
  const base = visibleNotifications(db, recipientId, { ...filter, read: false }, now);
  const limited =
    by === "notification"
      ? base.clearSelect().select("id").limit(literalLimit(limit))
      : base.clearSelect().select("group_key as id").distinct().limit(literalLimit(limit));
  const row = await db.selectFrom(limited.as("unread")).select(sql<number>`count(*)`.as("count")).executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function deleteNotifications(
  db: Kysely<Database>,
  recipientId: string,
  where: { id?: string; groupKey?: string },
): Promise<number> {
  let query = db.deleteFrom("notifications").where("account_id", "=", recipientId);
  if (where.id) query = query.where("id", "=", where.id);
  if (where.groupKey) query = query.where("group_key", "=", where.groupKey);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sets or clears the read time of one notification, or of every one up to `maxId`, or of all. */
export async function setReadAt(
  db: Kysely<Database>,
  recipientId: string,
  readAt: string | null,
  scope: { id?: string; maxId?: string },
): Promise<number> {
  let query = db.updateTable("notifications").set({ read_at: readAt }).where("account_id", "=", recipientId);
  if (scope.id) query = query.where("id", "=", scope.id);
  if (scope.maxId) query = query.where("id", "<=", scope.maxId);
  // Marking read keeps the first read time.
  query = readAt === null ? query.where("read_at", "is not", null) : query.where("read_at", "is", null);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Local accounts holding, through a global role, any access to one of `resources`. */
export async function holdersOfResources(db: Kysely<Database>, resources: readonly string[]): Promise<string[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .innerJoin("role_permissions", "role_permissions.role_id", "roles.id")
    .innerJoin("accounts", "accounts.id", "actor_roles.actor_id")
    .select("actor_roles.actor_id")
    .distinct()
    .where("roles.scope", "=", "global")
    .where("role_permissions.resource", "in", resources)
    .where("accounts.domain", "is", null)
    .execute();
  return rows.map((row) => row.actor_id);
}

/** Deletes the follow request notifications `fromId` caused `recipientId`; returns how many. */
export async function deleteFollowRequestNotifications(db: Kysely<Database>, recipientId: string, fromId: string): Promise<number> {
  const result = await db
    .deleteFrom("notifications")
    .where("account_id", "=", recipientId)
    .where("from_account_id", "=", fromId)
    .where("type", "=", "follow_request")
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Takes the notifications a follow of `followerId`, or its request, gave `targetId`: undone, the follow leaves no
 * notice of itself, as in Mastodon. One statement, for the transaction that takes the follow.
 */
export async function deleteFollowNotifications(db: Kysely<Database>, followerId: string, targetId: string): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("account_id", "=", targetId)
    .where("from_account_id", "=", followerId)
    .where("type", "in", ["follow", "follow_request"])
    .execute();
}

/**
 * Takes the notification `fromId`'s favourite or boost of `statusId` gave its author, for the transaction that undoes
 * it. A boost's notification is about the boosted status, so deleting the boost does not take it by its own id.
 */
export async function deleteActNotifications(
  db: Kysely<Database>,
  fromId: string,
  type: "favourite" | "reblog",
  statusId: string,
): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("status_id", "=", statusId)
    .where("from_account_id", "=", fromId)
    .where("type", "=", type)
    .execute();
}

/** Takes the mention notifications of `statusId` but those of `keptIds`: an edit that drops a mention takes its notice. */
export async function deleteMentionNotificationsBut(db: Kysely<Database>, statusId: string, keptIds: readonly string[]): Promise<void> {
  let query = db.deleteFrom("notifications").where("status_id", "=", statusId).where("type", "=", "mention");
  if (keptIds.length > 0) query = query.where("account_id", "not in", keptIds);
  await query.execute();
}

/** Who a notification is for, and what it is about. */
export interface NotificationAudience {
  readonly recipientIds: readonly string[];
  readonly fromId: string;
  /** The status whose muted conversation keeps it quiet; null: none does. */
  readonly conversationOf: string | null;
  readonly now: string;
  /** A type no notification policy holds back (a poll's end, an edit, the moderators'). @default false */
  readonly unfiltered?: boolean;
  /** A mention: the policy on private mentions applies when `conversationOf` is a direct status. @default false */
  readonly mention?: boolean;
  /** Accounts made after this time are new to the policy on new accounts; absent, none is. */
  readonly newAccountsSince?: string;
}

/**
 * Of `recipientIds`, in their order, the local accounts a notification from
 * `fromId` reaches: not those who block the sender or its domain, are blocked
 * by it, or mute it with notifications; when the sender is on a limited (or
 * suspended) domain, only those who follow it; and not those who muted the
 * conversation of `conversationOf`.
 */
export async function recipientsReached(db: Kysely<Database>, audience: NotificationAudience): Promise<string[]> {
  return [...(await verdictsOfRecipients(db, audience)).keys()];
}

/**
 * The recipients `recipientsReached` answers, in their order, each with what its notification policy makes of the
 * notification: `accept`, or `filter` (held back as a request). Those whose policy drops it are not reached.
 */
export async function verdictsOfRecipients(
  db: Kysely<Database>,
  audience: NotificationAudience,
): Promise<Map<string, "accept" | "filter">> {
  const { recipientIds, ...rules } = audience;
  if (recipientIds.length === 0) return new Map();
  const rows = await readInSlices(recipientIds, (slice) =>
    selectReached(db, {
      recipientIds: slice,
      fromId: rules.fromId,
      conversationOf: rules.conversationOf,
      now: rules.now,
      unfiltered: rules.unfiltered ?? false,
      mention: rules.mention ?? false,
      newAccountsSince: rules.newAccountsSince,
    }),
  );
  const verdicts = new Map(rows.map((row) => [row.id, row.verdict === "filter" ? ("filter" as const) : ("accept" as const)]));
  const reached = new Map<string, "accept" | "filter">();
  for (const id of recipientIds) {
    const verdict = verdicts.get(id);
    if (verdict) reached.set(id, verdict);
  }
  return reached;
}

/**
 * Every rule in one statement, compiled once: every notification an inbox activity makes passes here, and in a busy
 * server a statement's fixed cost is several times what SQLite takes to check one more rule in it.
 */
const selectReached = compiledOnce(
  (
    db,
    args: {
      recipientIds: readonly string[];
      fromId: string;
      conversationOf: string | null;
      now: string;
      unfiltered: boolean;
      mention: boolean;
      newAccountsSince: string | undefined;
    },
  ) =>
    reachedAccounts(db, args)
      .select((args.unfiltered ? sql<string>`'accept'` : policyVerdict(args)).as("verdict"))
      .where("recipient.id", "in", args.recipientIds),
);

/** `reachedAccounts` with the verdict of each one's notification policy (`verdict`), for a statement to read. */
export function reachedPolicyVerdict(db: Kysely<Database>, args: ReachRules) {
  return reachedAccounts(db, args).select(policyVerdict(args).as("verdict"));
}

/** How long an account is new to the policy on new accounts: Mastodon's 30 days. */
const NEW_ACCOUNT_MS = 30 * 24 * 60 * 60 * 1000;

/** Accounts made after this are new to the policy on new accounts. */
export function newAccountsSince(now: Date): string {
  return new Date(now.getTime() - NEW_ACCOUNT_MS).toISOString();
}

/** Notification policy values, as Mastodon names them. */
export const POLICY_VALUES = ["accept", "filter", "drop"] as const;
export type PolicyValue = (typeof POLICY_VALUES)[number];

/** What a notification policy holds when the recipient never set it: Mastodon's defaults. */
export const POLICY_DEFAULTS = {
  for_not_following: "accept",
  for_not_followers: "accept",
  for_new_accounts: "accept",
  for_private_mentions: "filter",
  for_limited_accounts: "filter",
} as const satisfies Record<string, PolicyValue>;

/**
 * What the notification policy of `recipient.id` makes of a notification from `fromId`: `drop`, `filter` or
 * `accept`, the strictest of its rules that apply; always `accept` from a sender whose request it accepted. One
 * correlated read, inside the statement that finds the recipients: a notification costs no statement more for it.
 */
function policyVerdict(args: ReachRules): RawBuilder<string> {
  const from = args.fromId;
  const policy = (column: keyof typeof POLICY_DEFAULTS) => sql`coalesce(p.${sql.ref(column)}, ${sql.lit(POLICY_DEFAULTS[column])})`;
  const notFollowing = sql`not exists (select 1 from follows pf where pf.account_id = r.id and pf.target_account_id = ${from})`;
  const notFollower = sql`not exists (select 1 from follows pf where pf.account_id = ${from} and pf.target_account_id = r.id)`;
  const limited = sql`exists (select 1 from accounts ps where ps.id = ${from} and not ${notFromLimitedDomain("ps.domain", "ps.id", null)})`;
  const rules: [keyof typeof POLICY_DEFAULTS, RawBuilder<unknown>][] = [
    ["for_not_following", notFollowing],
    ["for_not_followers", notFollower],
    ["for_limited_accounts", sql`(${limited} and ${notFollowing})`],
  ];
  if (args.newAccountsSince !== undefined) {
    rules.push([
      "for_new_accounts",
      sql`exists (select 1 from accounts ps where ps.id = ${from} and ps.created_at > ${args.newAccountsSince})`,
    ]);
  }
  if (args.mention && args.conversationOf !== null) {
    // A private mention from an account not followed, unless it answers the recipient.
    const direct = sql`exists (select 1 from statuses pst where pst.id = ${args.conversationOf} and pst.visibility = 'direct' and (pst.in_reply_to_account_id is null or pst.in_reply_to_account_id <> r.id))`;
    rules.push(["for_private_mentions", sql`(${direct} and ${notFollowing})`]);
  }
  const any = (value: PolicyValue) =>
    sql.join(
      rules.map(([column, applies]) => sql`(${policy(column)} = ${sql.lit(value)} and ${applies})`),
      sql` or `,
    );
  return sql<string>`(select case
    when exists (select 1 from notification_permissions pp where pp.account_id = r.id and pp.from_account_id = ${from}) then 'accept'
    when ${any("drop")} then 'drop'
    when ${any("filter")} then 'filter'
    else 'accept' end
    from accounts r left join notification_policies p on p.account_id = r.id where r.id = recipient.id)`;
}

/** What the rules of `recipientsReached` ask of a notification besides its recipients. */
export type ReachRules = Omit<NotificationAudience, "recipientIds">;

/**
 * The local accounts (`accounts as recipient`) a notification from `fromId` reaches by the rules of
 * `recipientsReached`, for the caller to narrow to its recipients: a statement that stores what a notification is
 * about can check its recipient in the same statement (a favourite's, `favourites.ts`).
 */
export function reachedAccounts(
  db: Kysely<Database>,
  args: ReachRules,
): SelectQueryBuilder<Database & { recipient: Database["accounts"] }, "recipient", { id: string }> {
  return db
    .selectFrom("accounts as recipient")
    .select("recipient.id")
    .where("recipient.domain", "is", null)
    .where(({ and, exists, not, or, selectFrom }) => {
      // The sender found by its key alone, fenced: next to a condition on its domain, PostgreSQL's planner may walk
      // the domain index over every remote account instead (it did for each incoming Like, on a count of remote
      // accounts not yet in its statistics).
      const sender = fencedSubquery(
        db,
        db.selectFrom("accounts").select(["accounts.id", "accounts.domain"]).where("accounts.id", "=", args.fromId),
      ).as("sender");
      const rules = [
        not(
          exists(
            selectFrom("blocks")
              .select("blocks.account_id")
              .whereRef("blocks.account_id", "=", "recipient.id")
              .where("blocks.target_account_id", "=", args.fromId),
          ),
        ),
        not(
          exists(
            selectFrom("blocks")
              .select("blocks.account_id")
              .where("blocks.account_id", "=", args.fromId)
              .whereRef("blocks.target_account_id", "=", "recipient.id"),
          ),
        ),
        not(
          exists(
            selectFrom("mutes")
              .select("mutes.account_id")
              .whereRef("mutes.account_id", "=", "recipient.id")
              .where("mutes.target_account_id", "=", args.fromId)
              .where("mutes.hide_notifications", "=", writeFlag(true))
              .where((inner) => inner.or([inner("mutes.expires_at", "is", null), inner("mutes.expires_at", ">", args.now)])),
          ),
        ),
        not(
          exists(
            selectFrom("account_domain_blocks")
              .select("account_domain_blocks.account_id")
              .whereRef("account_domain_blocks.account_id", "=", "recipient.id")
              .where(
                "account_domain_blocks.domain",
                "in",
                selectFrom(sender).select("sender.domain").where("sender.domain", "is not", null),
              ),
          ),
        ),
        // The recipient's notification policy decides what becomes of it, accounts of a limited domain included (its
        // `for_limited_accounts`); of a type no policy holds back, those reach only their followers.
        args.unfiltered
          ? or([
              not(
                exists(
                  selectFrom(sender)
                    .select("sender.id")
                    .where(sql<boolean>`not ${notFromLimitedDomain("sender.domain", "sender.id", null)}`),
                ),
              ),
              exists(
                selectFrom("follows")
                  .select("follows.account_id")
                  .whereRef("follows.account_id", "=", "recipient.id")
                  .where("follows.target_account_id", "=", args.fromId),
              ),
            ])
          : sql<boolean>`${policyVerdict(args)} <> 'drop'`,
      ];
      const { conversationOf } = args;
      if (conversationOf !== null) {
        // Muted under the status's own id or its conversation's.
        const conversation = selectFrom("statuses")
          .select("statuses.id as conversation_id")
          .where("statuses.id", "=", conversationOf)
          .unionAll(
            selectFrom("statuses")
              .select("statuses.conversation_id")
              .where("statuses.id", "=", conversationOf)
              .where("statuses.conversation_id", "is not", null)
              .$narrowType<{ conversation_id: string }>(),
          );
        rules.push(
          not(
            exists(
              selectFrom("conversation_mutes")
                .select("conversation_mutes.account_id")
                .whereRef("conversation_mutes.account_id", "=", "recipient.id")
                .where("conversation_mutes.conversation_id", "in", conversation),
            ),
          ),
        );
      }
      return and(rules);
    });
}

/** Of `recipientIds`, those already told about `statusId` by a notification of one of `types`. */
export async function recipientsNotifiedAbout(
  db: Kysely<Database>,
  recipientIds: readonly string[],
  statusId: string,
  types: readonly string[],
): Promise<Set<string>> {
  if (recipientIds.length === 0) return new Set();
  const rows = await readInSlices(recipientIds, (slice) =>
    db
      .selectFrom("notifications")
      .select("account_id")
      .where("status_id", "=", statusId)
      .where("account_id", "in", slice)
      .where("type", "in", types)
      .execute(),
  );
  return new Set(rows.map((row) => row.account_id));
}

/** Notifications as compiledOnce takes them: a list per column, in the same order (one shape per number of rows). */
type NotificationColumns = {
  readonly ids: readonly string[];
  readonly accountIds: readonly string[];
  readonly fromAccountIds: readonly string[];
  readonly types: readonly string[];
  readonly statusIds: readonly (string | null)[];
  readonly groupKeys: readonly string[];
  readonly readAts: readonly (string | null)[];
  readonly createdAts: readonly string[];
  /** Every row held back by a policy, or none: a statement for each kind (filtered rows are few). */
  readonly filtered: boolean;
};

// Compiled once: likes, boosts, replies and follows from other servers write their notifications here.
const insertNotificationRows = compiledOnce((db, args: NotificationColumns) =>
  db.insertInto("notifications").values(
    args.ids.map((id, i) => ({
      id,
      account_id: args.accountIds[i] as string,
      from_account_id: args.fromAccountIds[i] as string,
      type: args.types[i] as string,
      status_id: args.statusIds[i] ?? null,
      group_key: args.groupKeys[i] as string,
      read_at: args.readAts[i] ?? null,
      created_at: args.createdAts[i] as string,
      ...(args.filtered && { filtered: writeFlag(true) }),
    })),
  ),
);

/** Writes several notifications in one statement (two when some are held back by a policy). */
export async function insertNotifications(db: Kysely<Database>, records: readonly NotificationRecord[]): Promise<void> {
  const filtered = records.filter((record) => record.filtered === true);
  await insertNotificationsOfKind(db, filtered.length === 0 ? records : records.filter((record) => record.filtered !== true), false);
  await insertNotificationsOfKind(db, filtered, true);
}

async function insertNotificationsOfKind(db: Kysely<Database>, records: readonly NotificationRecord[], filtered: boolean): Promise<void> {
  if (records.length === 0) return;
  await insertNotificationRows(db, {
    filtered,
    ids: records.map((record) => record.id),
    accountIds: records.map((record) => record.recipientId),
    fromAccountIds: records.map((record) => record.fromAccountId),
    types: records.map((record) => record.type),
    statusIds: records.map((record) => record.statusId),
    groupKeys: records.map((record) => record.groupKey),
    readAts: records.map((record) => record.readAt),
    createdAts: records.map((record) => record.createdAt),
  });
}
