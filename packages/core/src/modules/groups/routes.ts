import { channelRoutes } from "./channel-routes.js";
import { groupRoutes } from "./group-routes.js";
import { invitationRoutes } from "./invitation-routes.js";
import { membershipRoutes } from "./membership-routes.js";
import { timelineRoutes } from "./timeline-routes.js";

/** Every route of the groups module. */
export const groupsModuleRoutes = [...groupRoutes, ...membershipRoutes, ...invitationRoutes, ...channelRoutes, ...timelineRoutes];
