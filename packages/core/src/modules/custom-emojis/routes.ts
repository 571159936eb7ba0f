import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { CustomEmojiJson } from "../../mastodon/entities/custom-emoji.js";
import { publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { moduleRoute } from "../module.js";
import { adminCustomEmojiRoutes } from "./admin-routes.js";
import { customEmojiErrors } from "./custom-emoji-errors.js";
import type { CustomEmojiService } from "./custom-emoji-service.js";

const route = moduleRoute<CustomEmojiService>();

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
  route({
    method: "GET",
    path: "/emojis/{id}",
    summary: "One of this server's custom emojis as the ActivityPub `Emoji` the posts that use it tag",
    tags: ["custom_emojis"],
    access: publicAccess,
    params: z.object({ id: z.string().min(1).max(64) }),
    produces: "application/activity+json",
    response: z.record(z.string(), z.unknown()),
    handler: async ({ module, params }) => {
      const object = await module.activityObject(params.id);
      if (!object) throw new KithError(customEmojiErrors["custom_emoji.not_found"]);
      return Reply.text(JSON.stringify(object), "application/activity+json", { headers: { "cache-control": "public, max-age=300" } });
    },
  }),
  route({
    method: "GET",
    path: "/emojis/{id}/{fileName}",
    summary: "The image of one of this server's custom emojis, or its still rendition",
    tags: ["custom_emojis"],
    access: publicAccess,
    params: z.object({ id: z.string().min(1).max(64), fileName: z.string().min(1).max(128) }),
    produces: "application/octet-stream",
    response: z.string().meta({ format: "binary" }),
    handler: async ({ module, params }) => {
      const file = await module.openImage(params.id, params.fileName);
      if (!file) throw new KithError(customEmojiErrors["custom_emoji.not_found"]);
      return new Response(file.body, {
        headers: {
          "content-type": file.contentType,
          "content-length": String(file.size),
          // The name holds a hash of the content: it never serves other bytes.
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "cross-origin-resource-policy": "cross-origin",
        },
      });
    },
  }),
  ...adminCustomEmojiRoutes,
];
