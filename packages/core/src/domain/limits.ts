/**
 * Limits the server enforces and announces in `/api/v2/instance`. Clients read
 * and obey them, so the validators and the instance document read this one
 * object, never their own copies.
 */
export interface InstanceLimits {
  readonly statuses: {
    readonly maxCharacters: number;
    readonly maxMediaAttachments: number;
    readonly charactersReservedPerUrl: number;
  };
  readonly mediaAttachments: {
    readonly supportedMimeTypes: readonly string[];
    readonly imageSizeLimit: number;
    readonly imageMatrixLimit: number;
    readonly videoSizeLimit: number;
    readonly videoFrameRateLimit: number;
    readonly videoMatrixLimit: number;
    readonly descriptionLimit: number;
  };
  readonly polls: {
    readonly maxOptions: number;
    readonly maxCharactersPerOption: number;
    readonly minExpiration: number;
    readonly maxExpiration: number;
  };
  readonly accounts: {
    readonly maxFeaturedTags: number;
    readonly maxProfileFields: number;
    readonly maxDisplayNameLength: number;
    readonly maxNoteLength: number;
  };
  /** Bytes of a JSON or form request body. */
  readonly maxJsonBodyBytes: number;
}

export const DEFAULT_LIMITS: InstanceLimits = {
  statuses: { maxCharacters: 500, maxMediaAttachments: 4, charactersReservedPerUrl: 23 },
  mediaAttachments: {
    supportedMimeTypes: [
      "image/jpeg",
      "image/png",
      "image/gif",
      "image/webp",
      "image/avif",
      "video/mp4",
      "video/webm",
      "video/quicktime",
      "audio/mpeg",
      "audio/ogg",
      "audio/wav",
      "audio/flac",
      "audio/mp4",
    ],
    imageSizeLimit: 16 * 1024 * 1024,
    imageMatrixLimit: 33_177_600,
    videoSizeLimit: 99 * 1024 * 1024,
    videoFrameRateLimit: 120,
    videoMatrixLimit: 8_294_400,
    descriptionLimit: 1_500,
  },
  polls: { maxOptions: 4, maxCharactersPerOption: 50, minExpiration: 300, maxExpiration: 2_629_746 },
  accounts: { maxFeaturedTags: 10, maxProfileFields: 4, maxDisplayNameLength: 30, maxNoteLength: 500 },
  maxJsonBodyBytes: 1_000_000,
};
