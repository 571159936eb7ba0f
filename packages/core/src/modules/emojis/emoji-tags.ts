import { Emoji, Image } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { customEmojiUrls, shortcodesIn } from "../../mastodon/serializers/custom-emoji.js";
import { findEnabledEmojis } from "./custom-emoji-lookups-store.js";
import type { Database } from "../../ports/storage-schema.js";
import { instantOf } from "../../platform/federation/instant.js";

/** Served by the server itself (its emoji route), whatever the blob store: other servers fetch and keep a copy. */
const SERVED_HERE = { publicUrl: () => null };

/**
 * The `Emoji` tags of this server's custom emojis that texts name (a post's
 * content and warning, a profile's name, bio and fields), as Mastodon tags
 * them, so other servers show the images: `:name:`, the icon and its type,
 * and an id. None, and no query, when the texts name no shortcode.
 */
export async function localEmojiTags(db: Kysely<Database>, origin: string, texts: readonly (string | null | undefined)[]): Promise<Emoji[]> {
  const shortcodes = shortcodesIn(texts);
  if (shortcodes.length === 0) return [];
  const rows = await findEnabledEmojis(db, [null], shortcodes);
  return rows.flatMap((row) => {
    const urls = customEmojiUrls(row, origin, SERVED_HERE);
    if (!urls) return [];
    return [
      new Emoji({
        id: new URL(row.uri ?? `${origin}/emojis/${row.id}`),
        name: `:${row.shortcode}:`,
        updated: instantOf(row.updated_at),
        icon: new Image({ url: new URL(urls.url), ...(row.image_content_type && { mediaType: row.image_content_type }) }),
      }),
    ];
  });
}
