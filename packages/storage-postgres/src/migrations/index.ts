import type { Migration } from "kysely/migration";
import * as foundation from "./0001_foundation.js";
import * as jobs from "./0002_jobs.js";
import * as registration from "./0003_registration.js";
import * as adminAccounts from "./0004_admin_accounts.js";
import * as social from "./0005_social.js";

/** Numbered migrations, in order. The SQLite adapter has one of each number, with the same tables, columns and indexes. */
export const postgresMigrations: Record<string, Migration> = {
  "0001_foundation": foundation,
  "0002_jobs": jobs,
  "0003_registration": registration,
  "0004_admin_accounts": adminAccounts,
  "0005_social": social,
};
