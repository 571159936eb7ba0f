import type { AnyRoute } from "../../platform/http/route.js";
import { accountStatusRoutes } from "./account-statuses.js";
import { bookmarkFavouriteRoutes } from "./bookmarks-favourites.js";
import { pollRoutes } from "./polls.js";
import { statusRoutes } from "./statuses.js";
import { accountRoutes } from "./accounts.js";
import { blockMuteRoutes } from "./blocks-mutes.js";
import { domainBlockRoutes } from "./domain-blocks.js";
import { followRoutes } from "./follows.js";
import { profileRoutes } from "./profiles.js";
import { adminAccountRoutes } from "./admin-accounts.js";
import { adminDomainAllowRoutes } from "./admin-domain-allows.js";
import { adminFederationRoutes } from "./admin-federation.js";
import { adminDomainBlockRoutes } from "./admin-domain-blocks.js";
import { adminSettingsRoutes } from "./admin-settings.js";
import { adminUploadRoutes } from "./admin-uploads.js";
import { appRoutes } from "./apps.js";
import { emailAllowRoutes } from "./email-allow.js";
import { filterRoutes } from "./filters.js";
import { announcementRoutes } from "./announcements.js";
import { instanceActivityRoutes } from "./instance-activity.js";
import { searchRoutes } from "./search.js";
import { remoteUserRoutes } from "./remote-users.js";
import { streamingRoutes } from "./streaming.js";
import { tagRoutes } from "./tags.js";
import { healthRoutes } from "./health.js";
import { instanceRoutes } from "./instance.js";
import { jobRoutes } from "./jobs.js";
import { mediaRoutes } from "./media.js";
import { oauthRoutes } from "./oauth.js";
import { rbacRoutes } from "./rbac.js";
import { referenceRoutes } from "./reference.js";
import { registrationRoutes } from "./registration.js";
import { sessionRoutes } from "./sessions.js";
import { loginMethodRoutes } from "./login-methods.js";
import { passkeyRoutes } from "./passkeys.js";
import { passwordRoutes } from "./password.js";
import { phoneRoutes } from "./phone.js";
import { signupRoutes } from "./signups.js";
import { staticAssetRoutes } from "./static-assets.js";
import { uploadRoutes } from "./uploads.js";
import { conversationRoutes } from "./conversations.js";
import { listRoutes } from "./lists.js";
import { markerRoutes } from "./markers.js";
import { notificationRoutes } from "./notifications.js";
import { timelineRoutes } from "./timelines.js";

/** The endpoints of the social core, each declared once; the feature modules bring the rest. */
const coreRoutes: readonly AnyRoute[] = [
  ...healthRoutes,
  ...instanceRoutes,
  ...accountRoutes,
  ...profileRoutes,
  ...followRoutes,
  ...blockMuteRoutes,
  ...domainBlockRoutes,
  ...appRoutes,
  ...oauthRoutes,
  ...sessionRoutes,
  ...passwordRoutes,
  ...loginMethodRoutes,
  ...phoneRoutes,
  ...passkeyRoutes,
  ...adminSettingsRoutes,
  ...jobRoutes,
  ...registrationRoutes,
  ...emailAllowRoutes,
  ...signupRoutes,
  ...rbacRoutes,
  ...adminAccountRoutes,
  ...adminDomainBlockRoutes,
  ...adminDomainAllowRoutes,
  ...adminFederationRoutes,
  ...staticAssetRoutes,
  ...mediaRoutes,
  ...uploadRoutes,
  ...adminUploadRoutes,
  ...filterRoutes,
  ...searchRoutes,
  ...remoteUserRoutes,
  ...announcementRoutes,
  ...instanceActivityRoutes,
  ...streamingRoutes,
  ...tagRoutes,
  ...timelineRoutes,
  ...listRoutes,
  ...markerRoutes,
  ...conversationRoutes,
  ...notificationRoutes,
  ...statusRoutes,
  ...pollRoutes,
  ...bookmarkFavouriteRoutes,
  ...accountStatusRoutes,
];

/** The route table of a server: the core's endpoints, the modules' (`moduleRoutes`), and the reference that lists them all. */
export function serverRoutes(moduleRoutes: readonly AnyRoute[]): readonly AnyRoute[] {
  const table: readonly AnyRoute[] = [...coreRoutes, ...moduleRoutes, ...referenceRoutes(() => table)];
  return table;
}
