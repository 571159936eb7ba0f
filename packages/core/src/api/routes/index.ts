import type { AnyRoute } from "../route.js";
import { accountRoutes } from "./accounts.js";
import { adminSettingsRoutes } from "./admin-settings.js";
import { appRoutes } from "./apps.js";
import { healthRoutes } from "./health.js";
import { instanceRoutes } from "./instance.js";
import { jobRoutes } from "./jobs.js";
import { oauthRoutes } from "./oauth.js";
import { referenceRoutes } from "./reference.js";
import { sessionRoutes } from "./sessions.js";
import { staticAssetRoutes } from "./static-assets.js";

/** The route table: every endpoint of the server, each declared once. */
export const routeTable: readonly AnyRoute[] = [
  ...healthRoutes,
  ...instanceRoutes,
  ...accountRoutes,
  ...appRoutes,
  ...oauthRoutes,
  ...sessionRoutes,
  ...adminSettingsRoutes,
  ...jobRoutes,
  ...staticAssetRoutes,
  ...referenceRoutes(() => routeTable),
];
