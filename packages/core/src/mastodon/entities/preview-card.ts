import { z } from "zod";

/** Mastodon's PreviewCard: what a link in a status shows, read from the linked page. */
export const PreviewCardJson = z.object({
  url: z.string(),
  title: z.string(),
  description: z.string(),
  /** `link`, `photo`, `video` or `rich` (the last two with `html`, an iframe). */
  type: z.enum(["link", "photo", "video", "rich"]),
  author_name: z.string(),
  author_url: z.string(),
  provider_name: z.string(),
  provider_url: z.string(),
  html: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  /** The preview image, as the linked page names it; null without one. */
  image: z.string().nullable(),
  image_description: z.string(),
  embed_url: z.string(),
  blurhash: z.string().nullable(),
  published_at: z.string().nullable(),
  language: z.string().nullable(),
  /** Fediverse authors of the page (Mastodon 4.3); Kith names none yet. */
  authors: z.array(z.unknown()),
});

export type PreviewCardEntity = z.infer<typeof PreviewCardJson>;
