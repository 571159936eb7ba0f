import type { Kysely } from "kysely";
import { type Database, toBool } from "../../ports/storage-schema.js";

export interface CustomEmojiRecord {
  readonly shortcode: string;
  readonly imageMediaId: string | null;
  readonly imageRemoteUrl: string | null;
  readonly visibleInPicker: boolean;
  readonly category: string | null;
}

/** This server's enabled emojis, by shortcode. */
export async function listLocalCustomEmojis(db: Kysely<Database>): Promise<CustomEmojiRecord[]> {
  const rows = await db
    .selectFrom("custom_emojis")
    .select(["shortcode", "image_media_id", "image_remote_url", "visible_in_picker", "category", "disabled"])
    .where("domain", "is", null)
    .orderBy("shortcode", "asc")
    .execute();
  return rows
    .filter((row) => !toBool(row.disabled as unknown as boolean | number))
    .map((row) => ({
      shortcode: row.shortcode,
      imageMediaId: row.image_media_id,
      imageRemoteUrl: row.image_remote_url,
      visibleInPicker: toBool(row.visible_in_picker as unknown as boolean | number),
      category: row.category,
    }));
}
