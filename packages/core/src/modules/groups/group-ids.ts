import { defineIdKinds } from "../../domain/ids.js";

/**
 * The ids groups make, time-ordered as every Kith id. Groups are `gr_…`,
 * the prefix the spec fixes (the core's `group` kind, declared here again
 * as this module's); memberships, join requests, invitations, questions and
 * rules have prefixes of their own.
 */
export const groupIds = defineIdKinds({
  group: "gr",
  groupMember: "gm",
  joinRequest: "jr",
  groupInvitation: "gi",
  groupQuestion: "gq",
  groupRule: "gu",
});
