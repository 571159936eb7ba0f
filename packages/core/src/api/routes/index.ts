import type { AnyRoute } from "../route.js";
import { accountRoutes } from "./accounts.js";
import { adminAccountRoutes } from "./admin-accounts.js";
import { adminSettingsRoutes } from "./admin-settings.js";
import { appRoutes } from "./apps.js";
import { emailAllowRoutes } from "./email-allow.js";
import { healthRoutes } from "./health.js";
import { instanceRoutes } from "./instance.js";
import { jobRoutes } from "./jobs.js";
import { oauthRoutes } from "./oauth.js";
import { rbacRoutes } from "./rbac.js";
import { referenceRoutes } from "./reference.js";
import { registrationRoutes } from "./registration.js";
import { sessionRoutes } from "./sessions.js";
import { signupRoutes } from "./signups.js";
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
  ...registrationRoutes,
  ...emailAllowRoutes,
  ...signupRoutes,
  ...rbacRoutes,
  ...adminAccountRoutes,
  ...staticAssetRoutes,
  ...referenceRoutes(() => routeTable),
];
