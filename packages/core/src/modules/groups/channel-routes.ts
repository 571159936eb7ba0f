import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission, publicAccess } from "../../platform/http/access.js";
import { zBool } from "../../platform/http/schemas.js";
import { ChannelJson } from "./channel-entities.js";
import { CHANNEL_USERNAME } from "./channel-names.js";
import {
  ADMIN_SCOPES,
  GroupParams,
  MEMBERSHIP_SCOPES,
  READ_SCOPES,
  TAGS,
  concealGroup,
  inGroup,
  route,
  userOf,
  viewerOf,
} from "./route-parts.js";

/** Channels are run as the group's settings are: by its owners and admins. */
const manageChannels = permission(any("GroupSettings.Manage"), inGroup);
const ChannelParams = GroupParams.extend({ channelId: z.string().min(1).max(64) });

const Username = z.string().regex(CHANNEL_USERNAME, "1 to 30 letters, digits or underscores");
const DisplayName = z.string().trim().max(100);
const Note = z.string().max(5000);
const ParentId = z.string().min(1).max(64).nullable();

const CreateBody = z.object({
  username: Username.describe("Unique within the group, case aside"),
  global_username: Username.optional().describe(
    "Unique on the server with accounts' usernames and groups' names; `<group>_<username>` or a free variant when not given",
  ),
  display_name: DisplayName.optional(),
  note: Note.optional(),
  parent_id: ParentId.optional().describe("A channel of the same group to nest it in"),
  auto_subscribe: zBool.default(false).describe("Members are subscribed to it when they join"),
});

const UpdateBody = z.object({
  username: Username.optional(),
  global_username: Username.optional(),
  display_name: DisplayName.optional(),
  note: Note.optional(),
  parent_id: ParentId.optional().describe("Null moves the channel to the top"),
  auto_subscribe: zBool.optional().describe("For those who join from now on: present members keep their subscriptions as they are"),
  primary: zBool.optional().describe("True makes it the group's primary channel, in place of the present one"),
});

const CHANNEL_REFUSALS =
  "Refusals: group.channel_username_taken (422), group.channel_global_username_taken (422), group.channel_parent_not_found (422), group.channel_cycle (409).";

/** A group's channels, and subscribing to them. */
export const channelRoutes = [
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/channels",
    summary: "A group's channels, the primary first, then in the order they were made",
    description: "A secret group's channels are 404 to anyone but its members and invitees.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: z.array(ChannelJson),
    handler: async ({ caller, params, module }) => module.channels.list(params.groupId, viewerOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/channels",
    summary: "Makes a channel in a group (GroupSettings.Manage in the group)",
    description: `${CHANNEL_REFUSALS} group.channel_limit (409): a group has at most 100 channels.`,
    tags: TAGS,
    access: manageChannels,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: CreateBody,
    response: ChannelJson,
    handler: async ({ caller, params, body, module }) =>
      module.channels.create(params.groupId, userOf(caller), {
        username: body.username,
        ...(body.global_username !== undefined && { globalUsername: body.global_username }),
        ...(body.display_name !== undefined && { displayName: body.display_name }),
        ...(body.note !== undefined && { note: body.note }),
        ...(body.parent_id !== undefined && { parentId: body.parent_id }),
        autoSubscribe: body.auto_subscribe,
      }),
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/channels/{channelId}",
    summary: "A channel of a group, with whether the caller is subscribed to it",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: ChannelParams,
    response: ChannelJson,
    handler: async ({ caller, params, module }) => module.channels.get(params.groupId, params.channelId, viewerOf(caller)),
  }),
  route({
    method: "PATCH",
    path: "/api/v1/groups/{groupId}/channels/{channelId}",
    summary: "Changes a channel: its names, note, parent, auto-subscription, or makes it primary (GroupSettings.Manage in the group)",
    description: `${CHANNEL_REFUSALS} group.channel_primary_required (409): \`primary: false\` on the primary channel; make another one primary instead.`,
    tags: TAGS,
    access: manageChannels,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: ChannelParams,
    body: UpdateBody,
    response: ChannelJson,
    handler: async ({ caller, params, body, module }) =>
      module.channels.update(params.groupId, params.channelId, userOf(caller), {
        ...(body.username !== undefined && { username: body.username }),
        ...(body.global_username !== undefined && { globalUsername: body.global_username }),
        ...(body.display_name !== undefined && { displayName: body.display_name }),
        ...(body.note !== undefined && { note: body.note }),
        ...(body.parent_id !== undefined && { parentId: body.parent_id }),
        ...(body.auto_subscribe !== undefined && { autoSubscribe: body.auto_subscribe }),
        ...(body.primary !== undefined && { primary: body.primary }),
      }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/channels/{channelId}",
    summary: "Deletes a channel; its statuses stay in the group, moved to the primary channel (GroupSettings.Manage in the group)",
    description:
      "Refusals: group.channel_primary (409), the primary channel; group.channel_has_children (409), a channel with channels nested in it (delete or move them first).",
    tags: TAGS,
    access: manageChannels,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: ChannelParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.channels.delete(params.groupId, params.channelId, userOf(caller));
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/channels/{channelId}/subscribe",
    summary: "Subscribes the caller to a channel of a group it is a member of; subscribing again changes nothing",
    description: "group.channel_members_only (403) for a caller who is not a member.",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: ChannelParams,
    response: ChannelJson,
    handler: async ({ caller, params, module }) => module.channels.subscribe(params.groupId, params.channelId, userOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/channels/{channelId}/unsubscribe",
    summary: "Ends the caller's subscription to a channel; none to end is no error",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: ChannelParams,
    response: ChannelJson,
    handler: async ({ caller, params, module }) => module.channels.unsubscribe(params.groupId, params.channelId, userOf(caller)),
  }),
];
