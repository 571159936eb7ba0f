import { z } from "zod";

/**
 * Mastodon's Reaction entity (of announcements), which Kith also gives
 * statuses: the emoji reactions other servers' users sent (Misskey's and
 * Pleroma's `EmojiReact`), one entry per emoji with its count.
 */
export const ReactionJson = z.object({
  name: z.string(),
  count: z.number().int(),
  /** Whether the viewer reacted so; Kith's own users do not react with emojis yet, so always false. */
  me: z.boolean(),
  url: z.string().optional(),
  static_url: z.string().optional(),
});

export type ReactionEntity = z.infer<typeof ReactionJson>;
