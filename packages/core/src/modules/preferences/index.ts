import { defineModule } from "../module.js";
import { PreferencesService } from "./preferences-service.js";
import { PreferencesStore } from "./preferences-store.js";
import { preferenceRoutes } from "./routes.js";

export type { PreferencesEntity, PreferencesService } from "./preferences-service.js";

/** Mastodon's preferences (`GET /api/v1/preferences`): the posting defaults and reading preferences clients read on start. */
export const preferencesModule = defineModule({
  name: "preferences",
  services: ({ deps }) => new PreferencesService(new PreferencesStore(deps.storage)),
  routes: preferenceRoutes,
});
