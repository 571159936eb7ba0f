import { type Kysely, type Updateable, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { Database, MediaAttachmentRow, MediaAttachmentsTable, UploadState } from "../../ports/storage-schema.js";

export type NewMediaAttachmentRow = Omit<
  MediaAttachmentRow,
  "type" | "tags" | "meta" | "size_bytes" | "custom_thumbnail" | "submitted_at" | "started_at" | "processing_ms"
> & {
  type?: string;
  tags?: string;
  meta?: string;
  size_bytes?: number;
  submitted_at?: string | null;
};

export async function insertMediaAttachment(db: Kysely<Database>, row: NewMediaAttachmentRow): Promise<void> {
  await db.insertInto("media_attachments").values(row).execute();
}

export async function findMediaAttachment(db: Kysely<Database>, id: string): Promise<MediaAttachmentRow | null> {
  return (await db.selectFrom("media_attachments").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

export async function findMediaAttachments(db: Kysely<Database>, ids: readonly string[]): Promise<MediaAttachmentRow[]> {
  if (ids.length === 0) return [];
  return selectMediaAttachments(db, { ids: [...new Set(ids)] });
}

// Avatars and headers of every account a page shows, and the media of its statuses: read on every page.
const selectMediaAttachments = compiledOnce((db, args: { ids: readonly string[] }) =>
  db.selectFrom("media_attachments").selectAll().where("id", "in", args.ids).orderBy("id"),
);

/** The attachments of these statuses, in one query, each status's in id order. */
export async function findMediaOfStatuses(db: Kysely<Database>, statusIds: readonly string[]): Promise<MediaAttachmentRow[]> {
  if (statusIds.length === 0) return [];
  return selectMediaOfStatuses(db, { statusIds: [...new Set(statusIds)] });
}

const selectMediaOfStatuses = compiledOnce((db, args: { statusIds: readonly string[] }) =>
  db.selectFrom("media_attachments").selectAll().where("status_id", "in", args.statusIds).orderBy("id"),
);

/**
 * Changes an attachment; when `fromStates` is given, only while it is in one
 * of them, so two workers cannot both move it. Returns whether a row changed.
 */
export async function updateMediaAttachment(
  db: Kysely<Database>,
  id: string,
  changes: Updateable<MediaAttachmentsTable>,
  fromStates?: readonly UploadState[],
): Promise<boolean> {
  let query = db.updateTable("media_attachments").set(changes).where("id", "=", id);
  if (fromStates) query = query.where("state", "in", [...fromStates]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteMediaAttachment(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("upload_logs").where("upload_id", "=", id).execute();
  await db.deleteFrom("upload_tokens").where("upload_id", "=", id).execute();
  await db.deleteFrom("media_attachments").where("id", "=", id).execute();
}

/** Sets `status_id` on these attachments of `accountId` that are attached to nothing; returns how many changed. */
export async function attachMediaToStatus(
  db: Kysely<Database>,
  input: { accountId: string; statusId: string; mediaIds: readonly string[]; now: string },
): Promise<number> {
  if (input.mediaIds.length === 0) return 0;
  const result = await db
    .updateTable("media_attachments")
    .set({ status_id: input.statusId, updated_at: input.now })
    .where("id", "in", [...input.mediaIds])
    .where("account_id", "=", input.accountId)
    .where((eb) => eb.or([eb("status_id", "is", null), eb("status_id", "=", input.statusId)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface StorageUsageRow {
  readonly uploadType: string;
  readonly files: number;
  readonly bytes: number;
}

/**
 * Bytes and files a user's local uploads take, per upload type. Failed
 * uploads hold nothing, and uploads whose URL expired before any content
 * came never will: both are left out.
 */
export async function storageUsage(db: Kysely<Database>, accountId: string, now: string): Promise<StorageUsageRow[]> {
  const rows = await db
    .selectFrom("media_attachments")
    .select([
      "upload_type",
      sql<number>`cast(count(*) as bigint)`.as("files"),
      sql<number>`cast(coalesce(sum(size_bytes), 0) as bigint)`.as("bytes"),
    ])
    .where("account_id", "=", accountId)
    .where("remote_url", "is", null)
    .where("state", "!=", "failed")
    .where((eb) =>
      eb.or([
        eb("state", "!=", "awaiting_upload"),
        eb.exists(
          eb
            .selectFrom("upload_tokens")
            .select("upload_tokens.upload_id")
            .whereRef("upload_tokens.upload_id", "=", "media_attachments.id")
            .where("upload_tokens.expires_at", ">", now),
        ),
      ]),
    )
    .groupBy("upload_type")
    .execute();
  return rows.map((row) => ({ uploadType: row.upload_type, files: Number(row.files), bytes: Number(row.bytes) }));
}

export interface UploadSearch {
  readonly accountId: string;
  readonly uploadType?: string;
  /** Every tag must be on the upload. Tags are `[A-Za-z0-9_-]`, so they need no escaping in LIKE. */
  readonly tags: readonly string[];
}

/** A user's uploads, newest first, by id page. */
export async function searchUploads(db: Kysely<Database>, search: UploadSearch, page: PageRequest): Promise<MediaAttachmentRow[]> {
  let query = db.selectFrom("media_attachments").selectAll().where("account_id", "=", search.accountId);
  if (search.uploadType) query = query.where("upload_type", "=", search.uploadType);
  for (const tag of search.tags) {
    // JSON text of an array of strings: a tag is present when its quoted form is.
    query = query.where(sql<boolean>`lower(cast(tags as text)) like ${`%"${tag.toLowerCase()}"%`}`);
  }
  return fetchIdPage(query, "id", page);
}

export type UploadQueueSort = "submitted_at" | "processing_ms";

export interface UploadQueueQuery {
  readonly states: readonly UploadState[];
  readonly uploadType?: string;
  readonly sort: UploadQueueSort;
  readonly order: "asc" | "desc";
  readonly limit: number;
  readonly offset: number;
}

/** Uploads in some processing states, sorted by submission time or processing duration (then by id). */
export async function listUploadQueue(db: Kysely<Database>, query: UploadQueueQuery): Promise<MediaAttachmentRow[]> {
  let select = db
    .selectFrom("media_attachments")
    .selectAll()
    .where("state", "in", [...query.states]);
  if (query.uploadType) select = select.where("upload_type", "=", query.uploadType);
  // Nulls last in both engines and both directions, so unfinished jobs do not crowd the top of a duration sort.
  select = select
    .orderBy(sql`case when ${sql.ref(query.sort)} is null then 1 else 0 end`)
    .orderBy(query.sort, query.order)
    .orderBy("id", query.order);
  return select.limit(query.limit).offset(query.offset).execute();
}

/** How many local uploads are in each state, per upload type. */
export async function countUploadsByState(db: Kysely<Database>): Promise<{ state: string; uploadType: string; count: number }[]> {
  const rows = await db
    .selectFrom("media_attachments")
    .select(["state", "upload_type", sql<number>`cast(count(*) as bigint)`.as("count")])
    .where("remote_url", "is", null)
    .groupBy(["state", "upload_type"])
    .execute();
  return rows.map((row) => ({ state: row.state, uploadType: row.upload_type, count: Number(row.count) }));
}
