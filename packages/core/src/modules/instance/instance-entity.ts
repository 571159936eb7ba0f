import type { InstanceLimits } from "../../domain/limits.js";
import type { InstanceOverview } from "./instance-service.js";
import type { InstanceV1, InstanceV2 } from "../../mastodon/entities/instance.js";

/** Mastodon clients read the leading version for feature detection; Kith names itself after it. */
function compatibleVersion(version: string): string {
  return `4.3.0 (compatible; Kith ${version})`;
}

function streamingUrl(origin: string): string {
  return origin.replace(/^http/, "ws");
}

function statusesConfig(limits: InstanceLimits) {
  return {
    max_characters: limits.statuses.maxCharacters,
    max_media_attachments: limits.statuses.maxMediaAttachments,
    characters_reserved_per_url: limits.statuses.charactersReservedPerUrl,
  };
}

function mediaConfig(limits: InstanceLimits) {
  const media = limits.mediaAttachments;
  return {
    supported_mime_types: [...media.supportedMimeTypes],
    description_limit: media.descriptionLimit,
    image_size_limit: media.imageSizeLimit,
    image_matrix_limit: media.imageMatrixLimit,
    video_size_limit: media.videoSizeLimit,
    video_frame_rate_limit: media.videoFrameRateLimit,
    video_matrix_limit: media.videoMatrixLimit,
  };
}

function pollsConfig(limits: InstanceLimits) {
  return {
    max_options: limits.polls.maxOptions,
    max_characters_per_option: limits.polls.maxCharactersPerOption,
    min_expiration: limits.polls.minExpiration,
    max_expiration: limits.polls.maxExpiration,
  };
}

/** What the instance document says of the features modules bring. */
export interface InstanceFeatures {
  /** Whether statuses can be translated (a module binds a translator). */
  readonly translationEnabled: boolean;
}

export function serializeInstanceV2(overview: InstanceOverview, limits: InstanceLimits, features: InstanceFeatures): InstanceV2 {
  const { settings } = overview;
  return {
    domain: overview.domain,
    title: settings.title,
    version: compatibleVersion(overview.version),
    source_url: overview.sourceUrl,
    description: settings.description,
    usage: { users: { active_month: overview.userCount } },
    thumbnail: { url: `${overview.origin}/instance/thumbnail.png`, blurhash: null, versions: {} },
    icon: [],
    languages: ["en"],
    configuration: {
      urls: {
        streaming: streamingUrl(overview.origin),
        status: null,
        about: `${overview.origin}/about`,
        privacy_policy: null,
        terms_of_service: null,
      },
      vapid: { public_key: overview.vapidPublicKey },
      accounts: { max_featured_tags: limits.accounts.maxFeaturedTags, max_pinned_statuses: settings.maxPinnedPosts },
      statuses: statusesConfig(limits),
      media_attachments: mediaConfig(limits),
      polls: pollsConfig(limits),
      translation: { enabled: features.translationEnabled },
    },
    registrations: {
      enabled: settings.registrationsMode !== "closed",
      approval_required: settings.registrationsMode === "approval",
      reason_required: settings.registrationsMode === "approval",
      message: null,
      url: null,
      min_age: null,
    },
    api_versions: { mastodon: 2 },
    contact: { email: settings.contactEmail, account: null },
    rules: settings.rules.map((rule) => ({ id: rule.id, text: rule.text, hint: rule.hint })),
  };
}

export function serializeInstanceV1(overview: InstanceOverview, limits: InstanceLimits): InstanceV1 {
  const { settings } = overview;
  return {
    uri: overview.domain,
    title: settings.title,
    short_description: settings.description,
    description: settings.description,
    email: settings.contactEmail,
    version: compatibleVersion(overview.version),
    urls: { streaming_api: streamingUrl(overview.origin) },
    stats: { user_count: overview.userCount, status_count: overview.statusCount, domain_count: overview.domainCount },
    thumbnail: null,
    languages: ["en"],
    registrations: settings.registrationsMode !== "closed",
    approval_required: settings.registrationsMode === "approval",
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: limits.accounts.maxFeaturedTags, max_pinned_statuses: settings.maxPinnedPosts },
      statuses: statusesConfig(limits),
      media_attachments: mediaConfig(limits),
      polls: pollsConfig(limits),
    },
    contact_account: null,
    rules: settings.rules.map((rule) => ({ id: rule.id, text: rule.text, hint: rule.hint })),
  };
}
