import { z } from "zod";
import { AccountJson } from "../../mastodon/entities/account.js";
import { JOIN_MODES } from "./group-tables-store.js";

/** A role of a group, as members and memberships show it. */
export const GroupRoleJson = z.object({ id: z.string(), name: z.string() });

/** The caller's standing in a group. */
export const GroupMembershipJson = z.object({
  member: z.boolean(),
  joined_at: z.string().nullable(),
  /** The group's roles the caller holds (empty when not a member). */
  roles: z.array(GroupRoleJson),
  /** A join request of the caller's waits for a manager. */
  requested: z.boolean(),
  /** An invitation to the caller waits for an answer. */
  invited: z.boolean(),
});

/**
 * A group (Kith's entity, snake_case as Mastodon's). `name` is its handle,
 * unique on the server; `note` is plain text. `membership` is the caller's
 * standing, null for a guest. A group is also an account to Mastodon
 * clients, with the group's id (`GET /api/v1/accounts/{id}`); its avatar and
 * header are that account's.
 */
export const GroupJson = z.object({
  id: z.string().describe("gr_…, also the id of the group's account"),
  name: z.string(),
  display_name: z.string(),
  note: z.string(),
  join_mode: z.enum(JOIN_MODES),
  secret: z.boolean(),
  discoverable: z.boolean(),
  members_count: z.number().int(),
  statuses_count: z.number().int(),
  created_at: z.string(),
  avatar: z.string(),
  avatar_static: z.string(),
  header: z.string(),
  header_static: z.string(),
  membership: GroupMembershipJson.nullable(),
});

export const GroupMemberJson = z.object({
  /** The membership's id, the cursor of the members list (the order members joined in). */
  id: z.string(),
  account: AccountJson,
  joined_at: z.string(),
  roles: z.array(GroupRoleJson),
});

export const JoinRequestJson = z.object({
  id: z.string(),
  account: AccountJson,
  message: z.string().nullable(),
  status: z.enum(["pending", "approved", "rejected"]),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});

export const GroupInvitationJson = z.object({
  id: z.string(),
  group: GroupJson,
  account: AccountJson.describe("The invitee"),
  invited_by: AccountJson.nullable(),
  status: z.enum(["pending", "accepted", "declined"]),
  created_at: z.string(),
  answered_at: z.string().nullable(),
});

export const GroupBanJson = z.object({
  account: AccountJson,
  reason: z.string().nullable(),
  created_at: z.string(),
});

export const QUESTION_KINDS = ["text", "single_choice", "multiple_choice"] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export const GroupQuestionJson = z.object({
  id: z.string(),
  question: z.string(),
  kind: z.enum(QUESTION_KINDS),
  required: z.boolean(),
  /** The choices of a choice question; empty for a text question. */
  options: z.array(z.string()),
  /** The choices an answer must hold; shown to the group's managers only (null to anyone else, and when there are none). */
  expected: z.array(z.string()).nullable(),
});

export const JoinTokenJson = z.object({
  token: z.string().describe("Single use, for this caller and this group; give it to POST /api/v1/groups/{groupId}/join"),
  expires_at: z.string(),
});

export const GroupRuleJson = z.object({
  id: z.string(),
  text: z.string(),
  hint: z.string(),
  /** The rule's place in the list, from 0. */
  position: z.number().int(),
});

export type GroupEntity = z.infer<typeof GroupJson>;
export type GroupMembershipEntity = z.infer<typeof GroupMembershipJson>;
export type GroupMemberEntity = z.infer<typeof GroupMemberJson>;
export type JoinRequestEntity = z.infer<typeof JoinRequestJson>;
export type GroupInvitationEntity = z.infer<typeof GroupInvitationJson>;
export type GroupBanEntity = z.infer<typeof GroupBanJson>;
export type GroupQuestionEntity = z.infer<typeof GroupQuestionJson>;
export type JoinTokenEntity = z.infer<typeof JoinTokenJson>;
export type GroupRuleEntity = z.infer<typeof GroupRuleJson>;
