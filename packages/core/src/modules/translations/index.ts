import { defineModule } from "../module.js";
import { translationMigrations } from "./migrations.js";
import { TranslationService } from "./translation-service.js";
import { TranslationsStore } from "./translations-store.js";

export type { TranslationService } from "./translation-service.js";

/**
 * Translation of statuses (`POST /api/v1/statuses/{id}/translate`) through
 * the AI port's provider, kept per status, language and edit. Without this
 * module the route answers 503 and the instance document says translation
 * is not enabled.
 */
export const translationsModule = defineModule({
  name: "translations",
  migrations: translationMigrations,
  services: ({ deps, core }) => {
    const translations = new TranslationService(deps, core, new TranslationsStore(deps.storage));
    core.statusTranslation.bind(translations);
    return translations;
  },
});
