import { Emoji, Image } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { customEmojiUrls, shortcodesIn } from "../../mastodon/serializers/custom-emoji.js";
import { findEnabledEmojis } from "./custom-emoji-lookups-store.js";
import type { Database } from "../../ports/storage-schema.js";
import { instantOf } from "../../platform/federation/instant.js";

/** Served by the server itself (its emoji route), whatever the blob store: other servers fetch and keep a copy. */
const SERVED_HERE = { publicUrl: () => null };

type Texts = readonly (string | null | undefined)[];

/**
 * The `Emoji` tags of this server's custom emojis that texts name (a status's
 * content and warning, a profile's name, bio and fields), as Mastodon tags
 * them, so other servers show the images: `:name:`, the icon and its type,
 * and an id. None, and no query, when the texts name no shortcode.
 */
export async function localEmojiTags(db: Kysely<Database>, origin: string, texts: Texts): Promise<Emoji[]> {
  return (await localEmojiTagsOfEach(db, origin, [texts]))[0] ?? [];
}

/**
 * The emoji tags of each of several groups of texts (the statuses of a page),
 * read with one query over every shortcode they name; each group gets the
 * tags of its own shortcodes only.
 */
export async function localEmojiTagsOfEach(db: Kysely<Database>, origin: string, groups: readonly Texts[]): Promise<Emoji[][]> {
  const wanted = groups.map((texts) => shortcodesIn(texts));
  const all = [...new Set(wanted.flat())];
  if (all.length === 0) return groups.map(() => []);
  const tags = new Map<string, Emoji>();
  for (const row of await findEnabledEmojis(db, [null], all)) {
    const urls = customEmojiUrls(row, origin, SERVED_HERE);
    if (!urls) continue;
    tags.set(
      row.shortcode,
      new Emoji({
        id: new URL(row.uri ?? `${origin}/emojis/${row.id}`),
        name: `:${row.shortcode}:`,
        updated: instantOf(row.updated_at),
        icon: new Image({ url: new URL(urls.url), ...(row.image_content_type && { mediaType: row.image_content_type }) }),
      }),
    );
  }
  return wanted.map((shortcodes) => shortcodes.flatMap((shortcode) => tags.get(shortcode) ?? []));
}
