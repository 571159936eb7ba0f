import { defineErrorCodes } from "../../domain/error-catalog.js";

/**
 * The refusals of a group's channels. A channel of a group the caller may
 * not see is `group.channel_not_found`, as one that does not exist.
 */
export const channelErrors = defineErrorCodes({
  "group.channel_not_found": { status: 404, message: "Channel not found" },
  "group.channel_username_taken": { status: 422, message: "Another channel of this group has that username" },
  "group.channel_global_username_taken": { status: 422, message: "That global username is taken on this server" },
  "group.channel_parent_not_found": { status: 422, message: "The parent channel is not one of this group's" },
  "group.channel_cycle": { status: 409, message: "A channel cannot be nested under itself or under one of its own channels" },
  "group.channel_primary": { status: 409, message: "The primary channel cannot be deleted; make another channel primary first" },
  "group.channel_primary_required": { status: 409, message: "A group keeps one primary channel; make another channel primary instead" },
  "group.channel_has_children": { status: 409, message: "The channel has channels nested in it; delete or move them first" },
  "group.channel_limit": { status: 409, message: "The group has as many channels as it may have" },
  "group.channel_members_only": { status: 403, message: "Only the group's members may subscribe to its channels" },
  "group.channel_outside_group": { status: 422, message: "The channel is not one of the group's" },
  "group.channel_needs_group": { status: 422, message: "Name the group (group_id) of the channel to post in" },
  "group.reply_outside_channel": { status: 422, message: "A reply stays in the channel of the status it replies to" },
});
