/**
 * What other modules use of the administration of accounts: Mastodon's
 * Admin::Account entity (reports show their accounts with it).
 */
export { AdminAccountJson, type AdminAccountEntity, serializeAdminAccount } from "./admin-account-entity.js";
export type { AdminAccountView } from "./admin-account-service.js";
