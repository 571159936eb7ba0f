import { defineIdKinds } from "../../domain/ids.js";

/**
 * The ids of a report's parts. Reports themselves are the core's `report`
 * kind (`rp_…`); a reporter's comment and a moderator's note have prefixes
 * of their own.
 */
export const reportIds = defineIdKinds({
  reportComment: "rc",
  reportNote: "rn",
});
