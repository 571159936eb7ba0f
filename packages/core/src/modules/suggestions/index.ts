import { defineModule } from "../module.js";
import { suggestionRoutes } from "./routes.js";
import { SuggestionService } from "./suggestion-service.js";

export type { Suggestion, SuggestionService, SuggestionSource } from "./suggestion-service.js";

/** Mastodon's follow suggestions (`/api/v1/suggestions`, `/api/v2/suggestions`). */
export const suggestionsModule = defineModule({
  name: "suggestions",
  services: ({ deps, core }) => new SuggestionService(deps, core.accountViews),
  routes: suggestionRoutes,
});
