import { z } from "zod";

/** Mastodon's Rule entity. */
export const RuleJson = z.object({ id: z.string(), text: z.string(), hint: z.string() });

const statusesConfig = z.object({
  max_characters: z.number(),
  max_media_attachments: z.number(),
  characters_reserved_per_url: z.number(),
});
const mediaConfig = z.object({
  supported_mime_types: z.array(z.string()),
  description_limit: z.number(),
  image_size_limit: z.number(),
  image_matrix_limit: z.number(),
  video_size_limit: z.number(),
  video_frame_rate_limit: z.number(),
  video_matrix_limit: z.number(),
});
const pollsConfig = z.object({
  max_options: z.number(),
  max_characters_per_option: z.number(),
  min_expiration: z.number(),
  max_expiration: z.number(),
});

/** Mastodon's Instance entity (v2). */
export const InstanceV2Json = z.object({
  domain: z.string(),
  title: z.string(),
  version: z.string(),
  source_url: z.string(),
  description: z.string(),
  usage: z.object({ users: z.object({ active_month: z.number() }) }),
  thumbnail: z.object({ url: z.string(), blurhash: z.string().nullable(), versions: z.record(z.string(), z.string()) }),
  icon: z.array(z.object({ src: z.string(), size: z.string() })),
  languages: z.array(z.string()),
  configuration: z.object({
    urls: z.object({
      streaming: z.string(),
      status: z.string().nullable(),
      about: z.string(),
      privacy_policy: z.string().nullable(),
      terms_of_service: z.string().nullable(),
    }),
    vapid: z.object({ public_key: z.string() }),
    accounts: z.object({ max_featured_tags: z.number(), max_pinned_statuses: z.number() }),
    statuses: statusesConfig,
    media_attachments: mediaConfig,
    polls: pollsConfig,
    translation: z.object({ enabled: z.boolean() }),
  }),
  registrations: z.object({
    enabled: z.boolean(),
    approval_required: z.boolean(),
    reason_required: z.boolean(),
    message: z.string().nullable(),
    url: z.string().nullable(),
    min_age: z.number().nullable(),
  }),
  api_versions: z.object({ mastodon: z.number() }),
  contact: z.object({ email: z.string(), account: z.unknown().nullable() }),
  rules: z.array(RuleJson),
});

/** Mastodon's V1::Instance entity. */
export const InstanceV1Json = z.object({
  uri: z.string(),
  title: z.string(),
  short_description: z.string(),
  description: z.string(),
  email: z.string(),
  version: z.string(),
  urls: z.object({ streaming_api: z.string() }),
  stats: z.object({ user_count: z.number(), status_count: z.number(), domain_count: z.number() }),
  thumbnail: z.string().nullable(),
  languages: z.array(z.string()),
  registrations: z.boolean(),
  approval_required: z.boolean(),
  invites_enabled: z.boolean(),
  configuration: z.object({
    accounts: z.object({ max_featured_tags: z.number(), max_pinned_statuses: z.number() }),
    statuses: statusesConfig,
    media_attachments: mediaConfig,
    polls: pollsConfig,
  }),
  contact_account: z.unknown().nullable(),
  rules: z.array(RuleJson),
});

export type InstanceV2 = z.infer<typeof InstanceV2Json>;
export type InstanceV1 = z.infer<typeof InstanceV1Json>;

/** Mastodon's Language entity: an ISO 639 code and its English name. */
export const LanguageJson = z.object({ code: z.string(), name: z.string() });

/** Mastodon's ExtendedDescription entity: the about page's longer text, as HTML. */
export const ExtendedDescriptionJson = z.object({ updated_at: z.string().nullable(), content: z.string() });

/** Mastodon's DomainBlock entity: a domain the server limits (`silence`) or suspends, as it publishes it. */
export const DomainBlockJson = z.object({
  domain: z.string(),
  digest: z.string(),
  severity: z.enum(["silence", "suspend"]),
  comment: z.string().optional(),
});
