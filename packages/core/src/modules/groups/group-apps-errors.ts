import { defineErrorCodes } from "../../domain/error-catalog.js";

/** The refusals of group applications. */
export const groupAppsErrors = defineErrorCodes({
  "group.app_not_found": { status: 404, message: "No application of the catalog has that id" },
  "group.app_unavailable": { status: 409, message: "That application is in the catalog but not on this server yet" },
  "group.app_not_installed": { status: 404, message: "That application is not installed in this group" },
});
