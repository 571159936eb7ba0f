import { defineErrorCodes } from "../../domain/error-catalog.js";

/**
 * The refusals of groups, one code each. A group the caller may not see
 * (a secret group, to anyone but its members and invitees) is
 * `group.not_found`, as one that does not exist, never a 403.
 */
export const groupErrors = defineErrorCodes({
  "group.not_found": { status: 404, message: "Group not found" },
  "group.name_taken": { status: 422, message: "That name is taken on this server" },
  "group.already_member": { status: 409, message: "You are already a member of this group" },
  "group.not_member": { status: 409, message: "You are not a member of this group, nor asking to join it" },
  "group.banned": { status: 403, message: "You are banned from this group" },
  "group.invitation_required": { status: 403, message: "This group can be joined by invitation only" },
  "group.join_token_required": { status: 422, message: "This group asks questions first: answer them and join with the token you get" },
  "group.join_token_invalid": { status: 422, message: "The join token is not one issued to you for this group" },
  "group.join_token_expired": { status: 422, message: "The join token has expired; answer the questions again" },
  "group.join_token_used": { status: 409, message: "The join token was used already" },
  "group.not_questions_mode": { status: 409, message: "This group does not ask questions to join" },
  "group.answers_invalid": { status: 422, message: "Some answers are missing or not accepted" },
  "group.questions_invalid": { status: 422, message: "The questions are not valid" },
  "group.last_owner": { status: 409, message: "The group's last owner cannot leave or be removed; name another owner first" },
  "group.outranked": { status: 403, message: "That member holds permissions in the group that you do not" },
  "group.cannot_target_self": { status: 422, message: "Use leave to leave a group; you cannot remove or ban yourself" },
  "group.member_not_found": { status: 404, message: "That account is not a member of this group" },
  "group.ban_not_found": { status: 404, message: "That account is not banned from this group" },
  "group.already_banned": { status: 409, message: "That account is banned from this group already" },
  "group.join_request_not_found": { status: 404, message: "Join request not found" },
  "group.join_request_decided": { status: 409, message: "The join request was approved or rejected already" },
  "group.invitation_not_found": { status: 404, message: "Invitation not found" },
  "group.invitation_answered": { status: 409, message: "The invitation was accepted or declined already" },
  "group.already_invited": { status: 409, message: "That account has a pending invitation to this group already" },
  "group.invitee_banned": { status: 409, message: "That account is banned from this group; lift the ban before inviting it" },
  "group.role_needs_membership": { status: 409, message: "A group's roles are held by its members only" },
  "group.secrecy_fixed": { status: 409, message: "A group with statuses cannot become secret, nor stop being secret" },
  "group.members_only_posting": { status: 403, message: "Only the group's members may post in it" },
  "group.reply_outside_group": { status: 422, message: "A reply stays in the group of the status it replies to" },
  "group.mention_outside_secret_group": { status: 422, message: "A secret group's status may mention its members only" },
});
