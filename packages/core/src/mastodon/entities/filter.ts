import { z } from "zod";

export const FILTER_CONTEXTS = ["home", "notifications", "public", "thread", "account"] as const;
export const FILTER_ACTIONS = ["warn", "hide", "blur"] as const;

/** Mastodon's FilterKeyword entity. */
export const FilterKeywordJson = z.object({ id: z.string(), keyword: z.string(), whole_word: z.boolean() });

/** Mastodon's FilterStatus entity. */
export const FilterStatusJson = z.object({ id: z.string(), status_id: z.string() });

/** Mastodon's Filter entity (v2). */
export const FilterJson = z.object({
  id: z.string(),
  title: z.string(),
  context: z.array(z.enum(FILTER_CONTEXTS)),
  expires_at: z.string().nullable(),
  filter_action: z.enum(FILTER_ACTIONS),
  keywords: z.array(FilterKeywordJson),
  statuses: z.array(FilterStatusJson),
});

/** Mastodon's FilterResult entity: why a status matched, set on a status's `filtered`. */
export const FilterResultJson = z.object({
  filter: FilterJson,
  keyword_matches: z.array(z.string()).nullable(),
  status_matches: z.array(z.string()).nullable(),
});

/** Mastodon's V1::Filter entity: one keyword of a filter, seen as a filter of its own. */
export const V1FilterJson = z.object({
  id: z.string(),
  phrase: z.string(),
  context: z.array(z.enum(FILTER_CONTEXTS)),
  whole_word: z.boolean(),
  expires_at: z.string().nullable(),
  irreversible: z.boolean(),
});

export type FilterEntity = z.infer<typeof FilterJson>;
export type FilterKeywordEntity = z.infer<typeof FilterKeywordJson>;
export type FilterStatusEntity = z.infer<typeof FilterStatusJson>;
export type FilterResultEntity = z.infer<typeof FilterResultJson>;
export type V1FilterEntity = z.infer<typeof V1FilterJson>;
