import type { Migration } from "kysely/migration";
import * as foundation from "./0001_foundation.js";
import * as jobs from "./0002_jobs.js";

/** Numbered migrations, in order. The SQLite adapter has one of each number, with the same tables, columns and indexes. */
export const postgresMigrations: Record<string, Migration> = {
  "0001_foundation": foundation,
  "0002_jobs": jobs,
};
