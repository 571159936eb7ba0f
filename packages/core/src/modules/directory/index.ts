import { defineModule } from "../module.js";
import { DirectoryService } from "./directory-service.js";
import { directoryRoutes } from "./routes.js";

export type { DirectoryService } from "./directory-service.js";

/** Mastodon's profile directory (`/api/v1/directory`). */
export const directoryModule = defineModule({
  name: "directory",
  services: ({ deps, core }) => new DirectoryService(deps, core.accountViews),
  routes: directoryRoutes,
});
