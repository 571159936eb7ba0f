import { z } from "zod";

/** Mastodon's List entity. */
export const ListJson = z.object({
  id: z.string(),
  title: z.string(),
  replies_policy: z.enum(["followed", "list", "none"]),
  exclusive: z.boolean(),
});

export type ListEntity = z.infer<typeof ListJson>;
