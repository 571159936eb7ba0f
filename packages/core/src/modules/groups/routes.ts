import { appsRoutes } from "./group-apps-routes.js";
import { channelRoutes } from "./channel-routes.js";
import { groupRoutes } from "./group-routes.js";
import { settingsRoutes } from "./group-settings-routes.js";
import { invitationRoutes } from "./invitation-routes.js";
import { membershipRoutes } from "./membership-routes.js";
import { statusRemovalRoutes } from "./status-removal-routes.js";
import { timelineRoutes } from "./timeline-routes.js";

/** Every route of the groups module. */
export const groupsModuleRoutes = [
  ...groupRoutes,
  ...membershipRoutes,
  ...statusRemovalRoutes,
  ...invitationRoutes,
  ...channelRoutes,
  ...timelineRoutes,
  ...settingsRoutes,
  ...appsRoutes,
];
