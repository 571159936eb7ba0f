import { z } from "zod";
import { AccountJson } from "./account.js";
import { CustomEmojiJson } from "./custom-emoji.js";
import { ReactionJson } from "./reaction.js";
import { FilterResultJson } from "./filter.js";
import { MediaAttachmentJson } from "./media.js";
import { PreviewCardJson } from "./preview-card.js";

/** Mastodon's Mention entity. */
export const MentionJson = z.object({
  id: z.string(),
  username: z.string(),
  url: z.string(),
  acct: z.string(),
});

/** Mastodon's Tag entity (the short form statuses carry; `history` empty here, filled by trends). */
export const TagJson = z.object({
  name: z.string(),
  url: z.string(),
  history: z.array(z.object({ day: z.string(), uses: z.string(), accounts: z.string() })),
  following: z.boolean().optional(),
});

export const PollOptionJson = z.object({ title: z.string(), votes_count: z.number().int().nullable() });

/** Mastodon's Poll entity. */
export const PollJson = z.object({
  id: z.string(),
  expires_at: z.string().nullable(),
  expired: z.boolean(),
  multiple: z.boolean(),
  votes_count: z.number().int(),
  voters_count: z.number().int().nullable(),
  options: z.array(PollOptionJson),
  emojis: z.array(z.unknown()),
  voted: z.boolean().optional(),
  own_votes: z.array(z.number().int()).optional(),
});

export const ApplicationJson = z.object({ name: z.string(), website: z.string().nullable() });

/** The media attachments of a status: Mastodon's MediaAttachment entity. */
export const StatusMediaJson = MediaAttachmentJson;

/** Who may quote a status and how that applies to the caller (Mastodon 4.5's QuoteApproval). */
export const QuoteApprovalJson = z.object({
  automatic: z.array(z.string()),
  manual: z.array(z.string()),
  current_user: z.string(),
});

const StatusFields = {
  id: z.string(),
  uri: z.string(),
  url: z.string().nullable(),
  created_at: z.string(),
  account: AccountJson,
  content: z.string(),
  visibility: z.enum(["public", "unlisted", "private", "direct"]),
  sensitive: z.boolean(),
  spoiler_text: z.string(),
  media_attachments: z.array(StatusMediaJson),
  application: ApplicationJson.nullable(),
  mentions: z.array(MentionJson),
  tags: z.array(TagJson),
  emojis: z.array(CustomEmojiJson),
  /** Emoji reactions other servers' users sent (a Kith addition, Mastodon's Reaction entity). */
  reactions: z.array(ReactionJson),
  reblogs_count: z.number().int(),
  favourites_count: z.number().int(),
  replies_count: z.number().int(),
  quotes_count: z.number().int(),
  in_reply_to_id: z.string().nullable(),
  in_reply_to_account_id: z.string().nullable(),
  poll: PollJson.nullable(),
  /** The preview of the status's first link, once read (a moment after the status is posted). */
  card: PreviewCardJson.nullable(),
  language: z.string().nullable(),
  /** The plain-text source: only when asked (deleting for a redraft), null otherwise. */
  text: z.string().nullable(),
  edited_at: z.string().nullable(),
  /** The status this one quotes (Mastodon 4.5's Quote, or ShallowQuote inside a quoted status), null when none. */
  quote: z.unknown().nullable(),
  quote_approval: QuoteApprovalJson,
  favourited: z.boolean().optional(),
  reblogged: z.boolean().optional(),
  muted: z.boolean().optional(),
  bookmarked: z.boolean().optional(),
  pinned: z.boolean().optional(),
  filtered: z.array(FilterResultJson).optional(),
};

/** A status inside a boost: the same entity, whose own `reblog` is always null. */
export const InnerStatusJson = z.object({ ...StatusFields, reblog: z.null() });

/** Mastodon's Status entity: every field present, null or empty where Kith has nothing. */
export const StatusJson = z.object({ ...StatusFields, reblog: InnerStatusJson.nullable() });

/** Mastodon's StatusEdit entity: one version of a status. */
export const StatusEditJson = z.object({
  content: z.string(),
  spoiler_text: z.string(),
  sensitive: z.boolean(),
  created_at: z.string(),
  account: AccountJson,
  poll: z.object({ options: z.array(z.object({ title: z.string() })) }).nullable(),
  media_attachments: z.array(StatusMediaJson),
  emojis: z.array(z.unknown()),
  /** The quoted status of this version (Mastodon 4.5): an edit does not change what a status quotes here, so null. */
  quote: z.null(),
});

/** Mastodon's StatusSource entity: what an edit form starts from. */
export const StatusSourceJson = z.object({ id: z.string(), text: z.string(), spoiler_text: z.string() });

/**
 * Mastodon's Context entity, plus `highlights`: replies the root status's author
 * pinned under it (a Kith addition; clients that do not know it ignore it).
 */
export const ContextJson = z.object({
  ancestors: z.array(StatusJson),
  descendants: z.array(StatusJson),
  highlights: z.array(StatusJson),
});

export type MentionEntity = z.infer<typeof MentionJson>;
export type TagEntity = z.infer<typeof TagJson>;
export type PollEntity = z.infer<typeof PollJson>;
export type StatusMediaEntity = z.infer<typeof StatusMediaJson>;
export type InnerStatusEntity = z.infer<typeof InnerStatusJson>;
export type StatusEntity = z.infer<typeof StatusJson>;
export type StatusEditEntity = z.infer<typeof StatusEditJson>;
export type StatusSourceEntity = z.infer<typeof StatusSourceJson>;
export type ContextEntity = z.infer<typeof ContextJson>;
