import { z } from "zod";
import { CustomEmojiJson } from "./custom-emoji.js";

const FieldJson = z.object({ name: z.string(), value: z.string(), verified_at: z.string().nullable() });

/** Who may feature the account in a collection and how that applies to the caller (Mastodon 4.6); Kith has no collections. */
export const FeatureApprovalJson = z.object({
  automatic: z.array(z.string()),
  manual: z.array(z.string()),
  current_user: z.string(),
});

/** Mastodon's Account entity: every field present, null or empty where Kith has nothing. */
export const AccountJson = z.object({
  id: z.string(),
  username: z.string(),
  acct: z.string(),
  url: z.string(),
  uri: z.string(),
  display_name: z.string(),
  note: z.string(),
  avatar: z.string(),
  avatar_static: z.string(),
  header: z.string(),
  header_static: z.string(),
  locked: z.boolean(),
  fields: z.array(FieldJson),
  emojis: z.array(CustomEmojiJson),
  bot: z.boolean(),
  group: z.boolean(),
  discoverable: z.boolean().nullable(),
  indexable: z.boolean(),
  noindex: z.boolean().nullable(),
  hide_collections: z.boolean().nullable(),
  moved: z.unknown().nullable(),
  suspended: z.boolean(),
  limited: z.boolean(),
  memorial: z.boolean(),
  created_at: z.string(),
  last_status_at: z.string().nullable(),
  statuses_count: z.number(),
  followers_count: z.number(),
  following_count: z.number(),
  roles: z.array(z.object({ id: z.string(), name: z.string(), color: z.string() })),
  feature_approval: FeatureApprovalJson,
});

/** Mastodon's Role entity as credential accounts carry it. */
export const RoleJson = z.object({
  id: z.string(),
  name: z.string(),
  permissions: z.string(),
  color: z.string(),
  highlighted: z.boolean(),
});

/** The Account of the signed-in user, with its `source` and `role`. */
export const CredentialAccountJson = AccountJson.extend({
  source: z.object({
    privacy: z.string(),
    sensitive: z.boolean(),
    language: z.string().nullable(),
    note: z.string(),
    fields: z.array(FieldJson),
    follow_requests_count: z.number(),
    hide_collections: z.boolean().nullable(),
    discoverable: z.boolean().nullable(),
    indexable: z.boolean(),
    attribution_domains: z.array(z.string()),
    /** Who may quote the user's new statuses by default (Mastodon 4.5): anyone, unless a status says otherwise. */
    quote_policy: z.string(),
  }),
  role: RoleJson,
});

export type AccountEntity = z.infer<typeof AccountJson>;
export type CredentialAccountEntity = z.infer<typeof CredentialAccountJson>;
