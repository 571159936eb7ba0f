import { type Kysely, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { literalLimit } from "../../platform/storage/literal-limit.js";
import type { NotificationRecord } from "./notifications-store.js";
import { POLICY_DEFAULTS, type PolicyValue } from "./notifications-store.js";

export type PolicyColumn = keyof typeof POLICY_DEFAULTS;
export type NotificationPolicyValues = Readonly<Record<PolicyColumn, PolicyValue>>;

/** The notifications a policy held back from one sender: a notification request, named by its sender's id. */
export interface NotificationRequestRow {
  readonly fromAccountId: string;
  /** The newest of them, which the request shows (and pages by). */
  readonly last: NotificationRecord;
  readonly count: number;
  readonly firstAt: string;
  readonly lastAt: string;
}

const held = sql<boolean>`notifications.filtered`;

export async function readPolicy(db: Kysely<Database>, accountId: string): Promise<NotificationPolicyValues> {
  const row = await db.selectFrom("notification_policies").selectAll().where("account_id", "=", accountId).executeTakeFirst();
  const value = (column: PolicyColumn): PolicyValue => {
    const kept = row?.[column];
    return kept === "accept" || kept === "filter" || kept === "drop" ? kept : POLICY_DEFAULTS[column];
  };
  return {
    for_not_following: value("for_not_following"),
    for_not_followers: value("for_not_followers"),
    for_new_accounts: value("for_new_accounts"),
    for_private_mentions: value("for_private_mentions"),
    for_limited_accounts: value("for_limited_accounts"),
  };
}

export async function writePolicy(db: Kysely<Database>, accountId: string, policy: NotificationPolicyValues, now: string): Promise<void> {
  const values = { ...policy, updated_at: now };
  await db
    .insertInto("notification_policies")
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
    .execute();
}

/** How many requests are pending, and how many notifications they hold. */
export async function pendingCounts(db: Kysely<Database>, accountId: string): Promise<{ requests: number; notifications: number }> {
  const row = await db
    .selectFrom("notifications")
    .select([sql<number>`count(distinct from_account_id)`.as("requests"), sql<number>`count(*)`.as("notifications")])
    .where("account_id", "=", accountId)
    .where(held)
    .executeTakeFirst();
  return { requests: Number(row?.requests ?? 0), notifications: Number(row?.notifications ?? 0) };
}

/** A page of requests, newest (by their newest notification) first; `fromAccountId` narrows to one sender. */
export async function pageRequests(
  db: Kysely<Database>,
  accountId: string,
  page: {
    readonly limit: number;
    readonly maxId?: string | undefined;
    readonly sinceId?: string | undefined;
    readonly fromAccountId?: string;
  },
): Promise<NotificationRequestRow[]> {
  let query = db
    .selectFrom("notifications")
    .select([
      "from_account_id",
      sql<string>`max(notifications.id)`.as("last_id"),
      sql<string>`min(notifications.created_at)`.as("first_at"),
      sql<string>`max(notifications.created_at)`.as("last_at"),
      sql<number>`count(*)`.as("count"),
    ])
    .where("account_id", "=", accountId)
    .where(held)
    .groupBy("from_account_id");
  if (page.fromAccountId !== undefined) query = query.where("from_account_id", "=", page.fromAccountId);
  if (page.maxId !== undefined) query = query.having(sql<string>`max(notifications.id)`, "<", page.maxId);
  if (page.sinceId !== undefined) query = query.having(sql<string>`max(notifications.id)`, ">", page.sinceId);
  const groups = await query.orderBy(sql`max(notifications.id)`, "desc").limit(literalLimit(page.limit)).execute();
  if (groups.length === 0) return [];
  const lasts = await db
    .selectFrom("notifications")
    .select(["id", "account_id", "from_account_id", "type", "status_id", "group_key", "read_at", "created_at"])
    .where(
      "id",
      "in",
      groups.map((group) => group.last_id),
    )
    .execute();
  const byId = new Map(lasts.map((row) => [row.id, row]));
  return groups.flatMap((group) => {
    const row = byId.get(group.last_id);
    if (!row) return [];
    const last: NotificationRecord = {
      id: row.id,
      recipientId: row.account_id,
      fromAccountId: row.from_account_id,
      type: row.type,
      statusId: row.status_id,
      groupKey: row.group_key,
      readAt: row.read_at,
      createdAt: row.created_at,
    };
    return [{ fromAccountId: group.from_account_id, last, count: Number(group.count), firstAt: group.first_at, lastAt: group.last_at }];
  });
}

/** Lets the senders' notifications through, those held and those to come; answers the senders that had a request. */
export async function acceptRequests(db: Kysely<Database>, accountId: string, fromIds: readonly string[], now: string): Promise<number> {
  if (fromIds.length === 0) return 0;
  await db
    .insertInto("notification_permissions")
    .values(fromIds.map((fromId) => ({ account_id: accountId, from_account_id: fromId, created_at: now })))
    .onConflict((oc) => oc.columns(["account_id", "from_account_id"]).doNothing())
    .execute();
  const result = await db
    .updateTable("notifications")
    .set({ filtered: writeFlag(false) })
    .where("account_id", "=", accountId)
    .where("from_account_id", "in", fromIds)
    .where(held)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Forgets the senders' held notifications; their next ones make a new request. */
export async function dismissRequests(db: Kysely<Database>, accountId: string, fromIds: readonly string[]): Promise<number> {
  if (fromIds.length === 0) return 0;
  const result = await db
    .deleteFrom("notifications")
    .where("account_id", "=", accountId)
    .where("from_account_id", "in", fromIds)
    .where(held)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Of `fromIds`, the senders that have a request. */
export async function sendersWithRequests(db: Kysely<Database>, accountId: string, fromIds: readonly string[]): Promise<Set<string>> {
  if (fromIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("notifications")
    .select("from_account_id")
    .distinct()
    .where("account_id", "=", accountId)
    .where("from_account_id", "in", fromIds)
    .where(held)
    .execute();
  return new Set(rows.map((row) => row.from_account_id));
}
