/** What other modules use of accounts: rendering them, the shared username namespace, profile images, and groups' accounts. */
export type { AccountViews } from "./account-views.js";
export { usernameTaken } from "./accounts-store.js";
export type { GroupAccountsProvider, GroupStanding, GroupStatusesPage } from "./group-accounts.js";
export type { ProfileImageStore } from "./profile-service.js";
export type { EndorsementSource, FeaturedTagName, FeaturedTagSource } from "./profile-features.js";
