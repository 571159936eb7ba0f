import { z } from "zod";

/** Mastodon's CustomEmoji entity, as statuses, accounts, reactions and `GET /api/v1/custom_emojis` carry it. */
export const CustomEmojiJson = z.object({
  shortcode: z.string(),
  url: z.string(),
  static_url: z.string(),
  visible_in_picker: z.boolean(),
  category: z.string().nullable(),
});

export type CustomEmojiEntity = z.infer<typeof CustomEmojiJson>;
