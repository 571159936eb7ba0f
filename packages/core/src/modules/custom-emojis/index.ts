import { defineModule } from "../module.js";
import { CustomEmojiService } from "./custom-emoji-service.js";
import { customEmojiRoutes } from "./routes.js";

export type { AdminCustomEmojiEntity } from "./admin-custom-emoji.js";
export type {
  CustomEmojiEntity,
  CustomEmojiService,
  EmojiImportOptions,
  EmojiImportReport,
} from "./custom-emoji-service.js";

/**
 * This server's custom emojis: the list clients load (`GET /api/v1/custom_emojis`), their images (`/emojis/...`),
 * their administration (`/api/v1/admin/custom_emojis`) and the import of an archive (`kith emoji import`).
 */
export const customEmojisModule = defineModule({
  name: "custom-emojis",
  services: ({ deps }) => new CustomEmojiService(deps),
  routes: customEmojiRoutes,
});
