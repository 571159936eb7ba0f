import { defineModule } from "../module.js";
import { CustomEmojiService } from "./custom-emoji-service.js";
import { customEmojiRoutes } from "./routes.js";

export type { CustomEmojiEntity, CustomEmojiService } from "./custom-emoji-service.js";

/** This server's custom emojis (`GET /api/v1/custom_emojis`), with their images served from the media store. */
export const customEmojisModule = defineModule({
  name: "custom-emojis",
  services: ({ deps, core }) => new CustomEmojiService(deps, core.media),
  routes: customEmojiRoutes,
});
