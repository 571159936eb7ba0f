import { z } from "zod";
import { AccountJson } from "./account.js";

/** Mastodon's Relationship entity: how the viewer and one account stand. */
export const RelationshipJson = z.object({
  id: z.string(),
  following: z.boolean(),
  showing_reblogs: z.boolean(),
  notifying: z.boolean(),
  languages: z.array(z.string()).nullable(),
  followed_by: z.boolean(),
  blocking: z.boolean(),
  blocked_by: z.boolean(),
  muting: z.boolean(),
  muting_notifications: z.boolean(),
  requested: z.boolean(),
  requested_by: z.boolean(),
  domain_blocking: z.boolean(),
  endorsed: z.boolean(),
  note: z.string(),
});

/** Mastodon's FamiliarFollowers entity. */
export const FamiliarFollowersJson = z.object({ id: z.string(), accounts: z.array(AccountJson) });

/** An account as `GET /api/v1/mutes` lists it: with when the mute ends. */
export const MutedAccountJson = AccountJson.extend({ mute_expires_at: z.string().nullable() });

export type RelationshipEntity = z.infer<typeof RelationshipJson>;
export type FamiliarFollowersEntity = z.infer<typeof FamiliarFollowersJson>;
export type MutedAccountEntity = z.infer<typeof MutedAccountJson>;
