import { z } from "zod";

/** One day of a hashtag's use (Mastodon's TagHistory): counts as strings, the day as a UNIX timestamp string. */
export const TagHistoryJson = z.object({ day: z.string(), uses: z.string(), accounts: z.string() });

/** Mastodon's Tag entity in full, as tag, search, followed-tags and trends endpoints return it. */
export const FullTagJson = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  history: z.array(TagHistoryJson),
  following: z.boolean().optional(),
  featuring: z.boolean().optional(),
});

export type TagHistoryEntity = z.infer<typeof TagHistoryJson>;
export type FullTagEntity = z.infer<typeof FullTagJson>;
