import { z } from "zod";

/** Mastodon's Translation entity: a status's texts in another language. */
export const TranslationJson = z.object({
  /** The translated content, HTML as the status's. */
  content: z.string(),
  spoiler_text: z.string(),
  poll: z.object({ id: z.string(), options: z.array(z.object({ title: z.string() })) }).nullable(),
  media_attachments: z.array(z.object({ id: z.string(), description: z.string() })),
  detected_source_language: z.string(),
  provider: z.string(),
});

export type TranslationEntity = z.infer<typeof TranslationJson>;
