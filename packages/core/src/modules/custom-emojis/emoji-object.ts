import { customEmojiUrls } from "../../mastodon/serializers/custom-emoji.js";
import type { CustomEmojiRow } from "../../ports/storage-schema.js";

/** Served by the server itself, whatever the blob store: as the `Emoji` tags of statuses name it (emoji-tags.ts). */
const SERVED_HERE = { publicUrl: () => null };

/**
 * One of this server's emojis as the ActivityPub `Emoji` its id names, the
 * object statuses and profiles tag (Mastodon serves the same at
 * `/emojis/:id`). Written out here rather than with Fedify's vocabulary,
 * which loads with the first federation request, not with the routes.
 */
export function emojiObjectOf(row: CustomEmojiRow, origin: string): Record<string, unknown> | null {
  const urls = customEmojiUrls(row, origin, SERVED_HERE);
  if (!urls || row.domain !== null) return null;
  return {
    "@context": ["https://www.w3.org/ns/activitystreams", { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" }],
    id: row.uri ?? `${origin}/emojis/${row.id}`,
    type: "Emoji",
    name: `:${row.shortcode}:`,
    updated: new Date(row.updated_at).toISOString(),
    icon: { type: "Image", ...(row.image_content_type && { mediaType: row.image_content_type }), url: urls.url },
  };
}
