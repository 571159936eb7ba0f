import type { AnyRoute } from "../platform/http/route.js";
import { accountStatusRoutes } from "./statuses/account-status-routes.js";
import { bookmarkFavouriteRoutes } from "./statuses/bookmark-favourite-routes.js";
import { pollRoutes } from "./statuses/poll-routes.js";
import { statusRoutes } from "./statuses/status-routes.js";
import { accountRoutes } from "./accounts/account-routes.js";
import { blockMuteRoutes } from "./relationships/block-mute-routes.js";
import { domainBlockRoutes } from "./relationships/domain-block-routes.js";
import { followRoutes } from "./relationships/follow-routes.js";
import { profileRoutes } from "./accounts/profile-routes.js";
import { adminAccountRoutes } from "./admin-accounts/routes.js";
import { adminDomainAllowRoutes } from "./domain-policy/domain-allow-routes.js";
import { adminFederationRoutes } from "./domain-policy/federation-monitor-routes.js";
import { adminDomainBlockRoutes } from "./domain-policy/domain-block-routes.js";
import { adminSettingsRoutes } from "./settings/routes.js";
import { adminUploadRoutes } from "./media/admin-upload-routes.js";
import { appRoutes } from "./auth/app-routes.js";
import { emailAllowRoutes } from "./registration/email-allow-routes.js";
import { filterRoutes } from "./filters/routes.js";
import { announcementRoutes } from "./instance/announcement-routes.js";
import { instanceActivityRoutes } from "./instance/instance-activity-routes.js";
import { instancePublicationRoutes } from "./instance/instance-publication-routes.js";
import { searchRoutes } from "./search/routes.js";
import { remoteUserRoutes } from "./federation/remote-user-routes.js";
import { streamingRoutes } from "./streaming/routes.js";
import { tagRoutes } from "./tags/routes.js";
import { healthRoutes } from "./instance/health-routes.js";
import { instanceRoutes } from "./instance/instance-routes.js";
import { jobRoutes } from "./jobs/routes.js";
import { mediaRoutes } from "./media/media-routes.js";
import { oauthRoutes } from "./auth/oauth-routes.js";
import { rbacRoutes } from "./roles/routes.js";
import { referenceRoutes } from "./instance/reference-routes.js";
import { registrationRoutes } from "./registration/registration-routes.js";
import { sessionRoutes } from "./auth/session-routes.js";
import { loginMethodRoutes } from "./credentials/login-method-routes.js";
import { passkeyRoutes } from "./passkeys/routes.js";
import { passwordRoutes } from "./credentials/password-routes.js";
import { phoneRoutes } from "./credentials/phone-routes.js";
import { signupRoutes } from "./registration/signup-routes.js";
import { staticAssetRoutes } from "./instance/static-asset-routes.js";
import { uploadRoutes } from "./media/upload-routes.js";
import { conversationRoutes } from "./conversations/routes.js";
import { listRoutes } from "./lists/list-routes.js";
import { markerRoutes } from "./markers/routes.js";
import { notificationRoutes } from "./notifications/routes.js";
import { notificationPolicyRoutes } from "./notifications/policy-routes.js";
import { timelineRoutes } from "./timelines/routes.js";

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
  ...instancePublicationRoutes,
  ...streamingRoutes,
  ...tagRoutes,
  ...timelineRoutes,
  ...listRoutes,
  ...markerRoutes,
  ...conversationRoutes,
  ...notificationPolicyRoutes,
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
