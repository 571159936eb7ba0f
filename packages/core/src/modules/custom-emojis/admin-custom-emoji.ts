import { z } from "zod";
import { CustomEmojiJson } from "../../mastodon/entities/custom-emoji.js";
import { customEmojiUrls } from "../../mastodon/serializers/custom-emoji.js";
import type { BlobStore } from "../../ports/blob.js";
import { type CustomEmojiRow, toBool } from "../../ports/storage-schema.js";

/**
 * An emoji as administrators see it: Mastodon's CustomEmoji with what its
 * admin pages show beside it (id, domain, state, file, times), the fields
 * GoToSocial's admin emoji API gives.
 */
export const AdminCustomEmojiJson = CustomEmojiJson.extend({
  id: z.string(),
  /** Null for this server's emojis. */
  domain: z.string().nullable(),
  disabled: z.boolean(),
  /** The ActivityPub id other servers know the emoji by. */
  uri: z.string().nullable(),
  /** The image's type and size in bytes, for this server's emojis (other servers' images are not kept). */
  content_type: z.string().nullable(),
  total_file_size: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export type AdminCustomEmojiEntity = z.infer<typeof AdminCustomEmojiJson>;

export function serializeAdminCustomEmoji(row: CustomEmojiRow, origin: string, blob: Pick<BlobStore, "publicUrl">): AdminCustomEmojiEntity {
  // An emoji without an image (none is made so, but rows of other origins may be) still shows, with empty URLs.
  const urls = customEmojiUrls(row, origin, blob);
  return {
    shortcode: row.shortcode,
    url: urls?.url ?? "",
    static_url: urls?.staticUrl ?? "",
    visible_in_picker: toBool(row.visible_in_picker as unknown as boolean | number),
    category: row.category,
    id: row.id,
    domain: row.domain,
    disabled: toBool(row.disabled as unknown as boolean | number),
    uri: row.uri,
    content_type: row.image_content_type,
    total_file_size: row.image_size,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
