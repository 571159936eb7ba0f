import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { CustomEmojiRow, Database } from "../../ports/storage-schema.js";

/** This server's enabled emojis, by shortcode. */
export async function listLocalCustomEmojis(db: Kysely<Database>): Promise<CustomEmojiRow[]> {
  return db
    .selectFrom("custom_emojis")
    .selectAll()
    .where("domain", "is", null)
    .where("disabled", "=", writeFlag(false))
    .orderBy("shortcode", "asc")
    .execute();
}

/** Which emojis an administrator lists. */
export interface EmojiFilter {
  /** Only this server's (true) or only other servers' (false). */
  readonly local?: boolean;
  readonly domain?: string;
  readonly shortcode?: string;
}

/** A page of emojis, newest first, of this server and of others. */
export async function listCustomEmojiPage(db: Kysely<Database>, filter: EmojiFilter, page: PageRequest): Promise<CustomEmojiRow[]> {
  let query = db.selectFrom("custom_emojis").selectAll();
  if (filter.local === true) query = query.where("domain", "is", null);
  if (filter.local === false) query = query.where("domain", "is not", null);
  if (filter.domain !== undefined) query = query.where("domain", "=", filter.domain);
  if (filter.shortcode !== undefined) query = query.where("shortcode", "=", filter.shortcode);
  return fetchIdPage(query, "id", page);
}

export async function findCustomEmoji(db: Kysely<Database>, id: string): Promise<CustomEmojiRow | undefined> {
  return db.selectFrom("custom_emojis").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findLocalCustomEmoji(db: Kysely<Database>, shortcode: string): Promise<CustomEmojiRow | undefined> {
  return db.selectFrom("custom_emojis").selectAll().where("domain", "is", null).where("shortcode", "=", shortcode).executeTakeFirst();
}

/** A local emoji's image, as stored in the blob store. */
export interface EmojiImageColumns {
  readonly imageKey: string;
  readonly staticKey: string | null;
  readonly contentType: string;
  readonly size: number;
}

export interface NewLocalEmoji {
  readonly id: string;
  readonly shortcode: string;
  readonly category: string | null;
  readonly visibleInPicker: boolean;
  readonly image: EmojiImageColumns;
  /** The ActivityPub id other servers know it by. */
  readonly uri: string;
}

/** Inserts a local emoji; false when its shortcode is taken (the unique index says so, races included). */
export async function insertLocalEmoji(db: Kysely<Database>, emoji: NewLocalEmoji, now: string): Promise<boolean> {
  const inserted = await db
    .insertInto("custom_emojis")
    .values({
      id: emoji.id,
      shortcode: emoji.shortcode,
      domain: null,
      uri: emoji.uri,
      category: emoji.category,
      visible_in_picker: writeFlag(emoji.visibleInPicker),
      image_key: emoji.image.imageKey,
      static_key: emoji.image.staticKey,
      image_content_type: emoji.image.contentType,
      image_size: emoji.image.size,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** What an administrator may change of an emoji. */
export interface EmojiChanges {
  readonly category?: string | null;
  readonly visibleInPicker?: boolean;
  readonly disabled?: boolean;
  readonly image?: EmojiImageColumns;
}

export async function updateCustomEmoji(db: Kysely<Database>, id: string, changes: EmojiChanges, now: string): Promise<void> {
  await db
    .updateTable("custom_emojis")
    .set({
      updated_at: now,
      ...(changes.category !== undefined && { category: changes.category }),
      ...(changes.visibleInPicker !== undefined && { visible_in_picker: writeFlag(changes.visibleInPicker) }),
      ...(changes.disabled !== undefined && { disabled: writeFlag(changes.disabled) }),
      ...(changes.image && {
        image_key: changes.image.imageKey,
        static_key: changes.image.staticKey,
        image_content_type: changes.image.contentType,
        image_size: changes.image.size,
      }),
    })
    .where("id", "=", id)
    .execute();
}

export async function deleteCustomEmoji(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom("custom_emojis").where("id", "=", id).execute();
}
