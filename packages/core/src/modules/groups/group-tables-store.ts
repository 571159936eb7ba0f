import type { Kysely } from "kysely";
import type { Database, JsonText, Timestamp } from "../../ports/storage-schema.js";

/** A boolean column as both engines give it back (true or 1), written as a boolean; read through `toBool`. */
type Flag = boolean | number;

/** The bounds of one page of an id-ordered list, as a store's query applies them (see `readIdPage`). */
export interface IdBounds {
  /** Ids above this one. */
  readonly above?: string;
  /** Ids below this one. */
  readonly below?: string;
  /** Oldest first (a `min_id` page, read upwards from it); else newest first. */
  readonly ascending: boolean;
  readonly limit: number;
}

/** How a group lets people in (the spec's join modes). */
export const JOIN_MODES = ["OPEN", "APPROVAL", "INVITE_ONLY", "QUESTIONS"] as const;
export type JoinMode = (typeof JOIN_MODES)[number];

/** The states of a join request and of an invitation. */
export type JoinRequestStatus = "pending" | "approved" | "rejected";
export type InvitationStatus = "pending" | "accepted" | "declined";

export interface GroupsTable {
  id: string;
  name: string;
  name_key: string;
  display_name: string;
  note: string;
  join_mode: JoinMode;
  secret: Flag;
  discoverable: Flag;
  members_count: number;
  statuses_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupMembersTable {
  id: string;
  group_id: string;
  account_id: string;
  joined_at: Timestamp;
}

export interface GroupBansTable {
  group_id: string;
  account_id: string;
  banned_by: string | null;
  reason: string | null;
  created_at: Timestamp;
}

export interface GroupJoinRequestsTable {
  id: string;
  group_id: string;
  account_id: string;
  message: string | null;
  status: JoinRequestStatus;
  decided_by: string | null;
  decided_at: Timestamp | null;
  created_at: Timestamp;
}

export interface GroupInvitationsTable {
  id: string;
  group_id: string;
  account_id: string;
  invited_by: string | null;
  status: InvitationStatus;
  created_at: Timestamp;
  answered_at: Timestamp | null;
}

export interface GroupQuestionsTable {
  id: string;
  group_id: string;
  position: number;
  kind: string;
  question: string;
  required: Flag;
  options: JsonText;
  expected: JsonText | null;
}

export interface GroupRulesTable {
  id: string;
  group_id: string;
  position: number;
  text: string;
  hint: string;
}

export interface GroupJoinTokensTable {
  token_hash: string;
  group_id: string;
  account_id: string;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  created_at: Timestamp;
}

export interface GroupNotificationsTable {
  notification_id: string;
  group_id: string;
}

export interface GroupStatusesTable {
  status_id: string;
  group_id: string;
  account_id: string;
  /** Null only for a status posted before channels, until its group's primary channel is made. */
  channel_id: string | null;
  created_at: Timestamp;
}

export interface GroupChannelsTable {
  id: string;
  group_id: string;
  parent_id: string | null;
  username: string;
  username_key: string;
  global_username: string;
  global_username_key: string;
  display_name: string;
  note: string;
  /** The group's id on its primary channel, null on the others. */
  primary_of: string | null;
  auto_subscribe: Flag;
  statuses_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GroupChannelSubscriptionsTable {
  channel_id: string;
  account_id: string;
  group_id: string;
  created_at: Timestamp;
}

/** The module's tables, beside the core's (a store may join them with `accounts` or `roles`). */
// A type, not an interface: Kysely's withTables wants an object type with an index signature.
export type GroupTables = {
  groups: GroupsTable;
  group_members: GroupMembersTable;
  group_bans: GroupBansTable;
  group_join_requests: GroupJoinRequestsTable;
  group_invitations: GroupInvitationsTable;
  group_questions: GroupQuestionsTable;
  group_rules: GroupRulesTable;
  group_join_tokens: GroupJoinTokensTable;
  group_notifications: GroupNotificationsTable;
  group_statuses: GroupStatusesTable;
  group_channels: GroupChannelsTable;
  group_channel_subscriptions: GroupChannelSubscriptionsTable;
};

export type GroupsDb = Kysely<Database & GroupTables>;

/** The database, or a transaction on it, as the module's stores see it: the core's tables and the module's. */
export function groupsDb(db: Kysely<Database>): GroupsDb {
  // The core's schema type knows the core's tables; the module adds its own.
  return db.withTables<GroupTables>();
}
