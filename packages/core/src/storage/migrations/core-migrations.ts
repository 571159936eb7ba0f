import type { MigrationSpec } from "../../ports/migration-spec.js";
import { foundationMigration } from "./0001-foundation.js";
import { jobsMigration } from "./0002-jobs.js";
import { registrationMigration } from "./0003-registration.js";
import { adminAccountsMigration } from "./0004-admin-accounts.js";
import { socialMigration } from "./0005-social.js";
import { credentialsMigration } from "./0006-credentials.js";
import { uploadsMigration } from "./0007-uploads.js";
import { timelinesMigration } from "./0008-timelines.js";
import { searchMigration } from "./0009-search.js";
import { relationshipsMigration } from "./0011-relationships.js";
import { federationMigration } from "./0012-federation.js";
import { federationMonitoringMigration } from "./0015-federation-monitoring.js";
import { publicTimelineIndexMigration } from "./0016-public-timeline-index.js";
import { partialIndexesMigration } from "./0018-partial-indexes.js";
import { pendingStatusReactionsMigration } from "./0019-pending-post-reactions.js";
import { rowVersionsMigration } from "./0020-row-versions.js";
import { searchMergesMigration } from "./0021-search-merges.js";
import { localFollowersMigration } from "./0022-local-followers.js";
import { deferredSearchEntriesMigration } from "./0023-deferred-search-entries.js";
import { federationDetailsMigration } from "./0024-federation-details.js";
import { groupResourcesMigration } from "./0025-group-resources.js";
import { statusAudiencesMigration } from "./0026-status-audiences.js";
import { notificationRequestsMigration } from "./0027-notification-requests.js";
import { serverSecretKeyMigration } from "./0028-server-secret-key.js";
import { quotePostsMigration } from "./0029-quote-posts.js";

/**
 * Core's migrations, in the order they run (which is their names' order).
 * Each storage adapter renders them for its engine; a module's migrations
 * are more specs appended after these.
 */
export const coreMigrations: readonly MigrationSpec[] = [
  foundationMigration,
  jobsMigration,
  registrationMigration,
  adminAccountsMigration,
  socialMigration,
  credentialsMigration,
  uploadsMigration,
  timelinesMigration,
  searchMigration,
  relationshipsMigration,
  federationMigration,
  federationMonitoringMigration,
  publicTimelineIndexMigration,
  partialIndexesMigration,
  pendingStatusReactionsMigration,
  rowVersionsMigration,
  searchMergesMigration,
  localFollowersMigration,
  deferredSearchEntriesMigration,
  federationDetailsMigration,
  groupResourcesMigration,
  statusAudiencesMigration,
  notificationRequestsMigration,
  serverSecretKeyMigration,
  quotePostsMigration,
];
