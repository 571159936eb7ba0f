import { z } from "zod";
import { publicAccess } from "../../platform/http/access.js";
import { moduleRoute } from "../module.js";
import type { CustomEmojiService } from "./custom-emoji-service.js";

const route = moduleRoute<CustomEmojiService>();

/** Mastodon's CustomEmoji entity. */
const CustomEmojiJson = z.object({
  shortcode: z.string(),
  url: z.string(),
  static_url: z.string(),
  visible_in_picker: z.boolean(),
  category: z.string().nullable(),
});

export const customEmojiRoutes = [
  route({
    method: "GET",
    path: "/api/v1/custom_emojis",
    summary: "This server's custom emojis (an empty list when it has none)",
    tags: ["custom_emojis"],
    access: publicAccess,
    response: z.array(CustomEmojiJson),
    handler: async ({ module }) => module.list(),
  }),
];
