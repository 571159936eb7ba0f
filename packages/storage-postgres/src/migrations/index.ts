import type { Migration } from "kysely/migration";
import * as foundation from "./0001_foundation.js";
import * as jobs from "./0002_jobs.js";
import * as registration from "./0003_registration.js";
import * as adminAccounts from "./0004_admin_accounts.js";
import * as social from "./0005_social.js";
import * as credentials from "./0006_credentials.js";
import * as uploads from "./0007_uploads.js";
import * as timelines from "./0008_timelines.js";
import * as search from "./0009_search.js";
import * as relationships from "./0011_relationships.js";
import * as federation from "./0012_federation.js";
import * as federationMonitoring from "./0015_federation_monitoring.js";
import * as publicTimelineIndex from "./0016_public_timeline_index.js";
import * as partialIndexes from "./0018_partial_indexes.js";
import * as pendingPostReactions from "./0019_pending_post_reactions.js";
import * as rowVersions from "./0020_row_versions.js";
import * as searchMerges from "./0021_search_merges.js";
import * as localFollowers from "./0022_local_followers.js";
import * as deferredSearchEntries from "./0023_deferred_search_entries.js";

/** Numbered migrations, in order. The SQLite adapter has one of each number, with the same tables, columns and indexes. */
export const postgresMigrations: Record<string, Migration> = {
  "0001_foundation": foundation,
  "0002_jobs": jobs,
  "0003_registration": registration,
  "0004_admin_accounts": adminAccounts,
  "0005_social": social,
  "0006_credentials": credentials,
  "0007_uploads": uploads,
  "0008_timelines": timelines,
  "0009_search": search,
  "0011_relationships": relationships,
  "0012_federation": federation,
  "0015_federation_monitoring": federationMonitoring,
  "0016_public_timeline_index": publicTimelineIndex,
  "0018_partial_indexes": partialIndexes,
  "0019_pending_post_reactions": pendingPostReactions,
  "0020_row_versions": rowVersions,
  "0021_search_merges": searchMerges,
  "0022_local_followers": localFollowers,
  "0023_deferred_search_entries": deferredSearchEntries,
};
