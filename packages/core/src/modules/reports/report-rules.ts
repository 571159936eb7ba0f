import { any } from "../../domain/permissions.js";

/** The spec's R4: reading reports, in server scope or in a group's. */
export const R4 = any("Reports.Read", "Reports.Manage", "GroupReports.Read", "GroupReports.Manage");
/** The spec's M2: handling reports (and who may be assigned one). */
export const M2 = any("Reports.Manage", "GroupReports.Manage");
/** Reading the reports of groups themselves, which are always in server scope. */
export const SERVER_READ = any("Reports.Read", "Reports.Manage");
/** Mastodon's admin report API, which knows no group scope. */
export const MASTODON_MANAGE = any("Reports.Manage");
