import type { BlobStore } from "../../ports/blob.js";
import { type CustomEmojiRow, toBool } from "../../ports/storage-schema.js";
import type { CustomEmojiEntity } from "../entities/custom-emoji.js";

/** A shortcode as Mastodon takes it: letters, digits and underscores, two at least. */
export const SHORTCODE_PATTERN = /^[a-zA-Z0-9_]{2,}$/;

/** The longest shortcode kept; a longer one, from anywhere, is no emoji. */
export const MAX_SHORTCODE_LENGTH = 128;

/** `:shortcode:` where Mastodon finds one: not inside a word, nor glued to another emoji's colons. */
const SHORTCODE_IN_TEXT = /(?<=^|[^\p{L}\p{N}:]):([a-zA-Z0-9_]{2,128}):(?=$|[^\p{L}\p{N}:])/gu;

/** How many different shortcodes one text may name before the rest are ignored. */
const MAX_SHORTCODES_PER_TEXT = 100;

/** The shortcodes named in these texts, each once, without colons. */
export function shortcodesIn(texts: readonly (string | null | undefined)[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text?.includes(":")) continue;
    for (const match of text.matchAll(SHORTCODE_IN_TEXT)) {
      found.add(match[1] as string);
      if (found.size >= MAX_SHORTCODES_PER_TEXT) return [...found];
    }
  }
  return [...found];
}

/** The last segment of a blob key: the file name an emoji's URL ends with. */
function fileNameOf(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}

/** Where an emoji's image and its still rendition are fetched; null when it has no image to show. */
export function customEmojiUrls(
  row: Pick<CustomEmojiRow, "id" | "image_key" | "static_key" | "image_remote_url">,
  origin: string,
  blob: Pick<BlobStore, "publicUrl">,
): { readonly url: string; readonly staticUrl: string } | null {
  const served = (key: string) => blob.publicUrl(key) ?? `${origin}/emojis/${row.id}/${fileNameOf(key)}`;
  if (row.image_key) {
    const url = served(row.image_key);
    return { url, staticUrl: row.static_key ? served(row.static_key) : url };
  }
  if (row.image_remote_url) return { url: row.image_remote_url, staticUrl: row.image_remote_url };
  return null;
}

/** Mastodon's CustomEmoji entity of a stored emoji; null when it has no image to show. */
export function serializeCustomEmoji(
  row: Pick<CustomEmojiRow, "id" | "shortcode" | "image_key" | "static_key" | "image_remote_url" | "visible_in_picker" | "category">,
  origin: string,
  blob: Pick<BlobStore, "publicUrl">,
): CustomEmojiEntity | null {
  const urls = customEmojiUrls(row, origin, blob);
  if (!urls) return null;
  return {
    shortcode: row.shortcode,
    url: urls.url,
    static_url: urls.staticUrl,
    visible_in_picker: toBool(row.visible_in_picker as unknown as boolean | number),
    category: row.category,
  };
}
