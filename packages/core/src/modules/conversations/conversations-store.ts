import { type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import type { Database } from "../../ports/storage-schema.js";

export interface ConversationRecord {
  readonly id: string;
  readonly accountId: string;
  readonly conversationId: string;
  /** The other participants. */
  readonly participantIds: readonly string[];
  readonly lastStatusId: string | null;
  readonly unread: boolean;
}

const COLUMNS = ["id", "account_id", "conversation_id", "participant_ids", "last_status_id", "unread"] as const;

function toRecord(row: {
  id: string;
  account_id: string;
  conversation_id: string;
  participant_ids: string;
  last_status_id: string | null;
  unread: unknown;
}): ConversationRecord {
  const parsed: unknown = typeof row.participant_ids === "string" ? JSON.parse(row.participant_ids) : row.participant_ids;
  return {
    id: row.id,
    accountId: row.account_id,
    conversationId: row.conversation_id,
    participantIds: Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === "string") : [],
    lastStatusId: row.last_status_id,
    unread: readFlag(row.unread),
  };
}

export async function findConversationOf(
  db: Kysely<Database>,
  accountId: string,
  conversationId: string,
): Promise<ConversationRecord | null> {
  const row = await db
    .selectFrom("account_conversations")
    .select(COLUMNS)
    .where("account_id", "=", accountId)
    .where("conversation_id", "=", conversationId)
    .executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findConversation(db: Kysely<Database>, id: string): Promise<ConversationRecord | null> {
  const row = await db.selectFrom("account_conversations").select(COLUMNS).where("id", "=", id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function insertConversation(db: Kysely<Database>, record: ConversationRecord, at: string): Promise<void> {
  await db
    .insertInto("account_conversations")
    .values({
      id: record.id,
      account_id: record.accountId,
      conversation_id: record.conversationId,
      participant_ids: JSON.stringify(record.participantIds),
      last_status_id: record.lastStatusId,
      unread: writeFlag(record.unread),
      updated_at: at,
    })
    .execute();
}

export async function updateConversation(db: Kysely<Database>, record: ConversationRecord, at: string): Promise<void> {
  await db
    .updateTable("account_conversations")
    .set({
      participant_ids: JSON.stringify(record.participantIds),
      last_status_id: record.lastStatusId,
      unread: writeFlag(record.unread),
      updated_at: at,
    })
    .where("id", "=", record.id)
    .execute();
}

export async function deleteConversation(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("account_conversations").where("id", "=", id).execute();
}

/** One account's conversations, most recently active first (paged by the last status's id, as Mastodon does). */
export async function pageConversations(db: Kysely<Database>, accountId: string, page: PageRequest): Promise<ConversationRecord[]> {
  const rows = await fetchIdPage(
    db.selectFrom("account_conversations").select(COLUMNS).where("account_id", "=", accountId).where("last_status_id", "is not", null),
    "last_status_id",
    page,
  );
  return rows.map(toRecord);
}

/** Conversations whose last status was `statusId`. */
export async function conversationsEndingWith(db: Kysely<Database>, statusId: string): Promise<ConversationRecord[]> {
  const rows = await db.selectFrom("account_conversations").select(COLUMNS).where("last_status_id", "=", statusId).execute();
  return rows.map(toRecord);
}

/** The newest direct status left in a thread, for a conversation whose last status was deleted. */
export async function latestDirectStatus(db: Kysely<Database>, conversationId: string, exceptId: string): Promise<string | null> {
  const row = await db
    .selectFrom("statuses")
    .select(sql<string>`max(id)`.as("id"))
    .where((eb) => eb.or([eb("conversation_id", "=", conversationId), eb("id", "=", conversationId)]))
    .where("visibility", "=", "direct")
    .where("id", "!=", exceptId)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** What a conversation needs of a new direct status. */
export async function loadDirectStatus(
  db: Kysely<Database>,
  statusId: string,
): Promise<{ id: string; accountId: string; conversationId: string; visibility: string; authorLocal: boolean } | null> {
  const row = await db
    .selectFrom("statuses")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select(["statuses.id", "statuses.account_id", "statuses.conversation_id", "statuses.visibility", "accounts.domain"])
    .where("statuses.id", "=", statusId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    conversationId: row.conversation_id ?? row.id,
    visibility: row.visibility,
    authorLocal: row.domain === null,
  };
}

/** Every account mentioned in a status, with whether it is local. */
export async function mentionedAccounts(db: Kysely<Database>, statusId: string): Promise<{ accountId: string; local: boolean }[]> {
  const rows = await db
    .selectFrom("mentions")
    .innerJoin("accounts", "accounts.id", "mentions.account_id")
    .select(["mentions.account_id", "accounts.domain"])
    .where("mentions.status_id", "=", statusId)
    .execute();
  return rows.map((row) => ({ accountId: row.account_id, local: row.domain === null }));
}
