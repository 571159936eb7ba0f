import { z } from "zod";

/**
 * A channel of a group (Kith's entity, snake_case as Mastodon's). `username`
 * is unique within the group; `global_username` on the server, beside the
 * accounts' usernames and the groups' names. A channel has no privacy of its
 * own: it is its group's, so never looser. `subscribed` is the caller's
 * (false for a guest).
 */
export const ChannelJson = z.object({
  id: z.string().describe("ch_…"),
  group_id: z.string(),
  parent_id: z.string().nullable().describe("The channel it is nested in, of the same group; null at the top"),
  username: z.string().describe("Unique within the group, case aside"),
  global_username: z.string().describe("Unique on the server with accounts' usernames and groups' names, case aside"),
  display_name: z.string(),
  note: z.string(),
  primary: z.boolean().describe("Where the group's statuses posted without `channel_id` go; one per group"),
  auto_subscribe: z.boolean().describe("Members are subscribed to it when they join"),
  subscribed: z.boolean(),
  statuses_count: z.number().int(),
  created_at: z.string(),
});

export type ChannelEntity = z.infer<typeof ChannelJson>;
