import { z } from "zod";

/** One rendition's size in Mastodon's `meta` (original, small). */
const MediaSizeJson = z
  .object({
    width: z.number().optional(),
    height: z.number().optional(),
    size: z.string().optional(),
    aspect: z.number().optional(),
    frame_rate: z.string().optional(),
    duration: z.number().optional(),
    bitrate: z.number().optional(),
  })
  .passthrough();

/** Mastodon's `meta`: sizes of the original and the preview, the focal point, and for video and audio their length. */
export const MediaMetaJson = z
  .object({
    original: MediaSizeJson.optional(),
    small: MediaSizeJson.optional(),
    focus: z.object({ x: z.number(), y: z.number() }).optional(),
    length: z.string().optional(),
    duration: z.number().optional(),
    fps: z.number().optional(),
    audio_encode: z.string().optional(),
    audio_bitrate: z.string().optional(),
    audio_channels: z.string().optional(),
  })
  .passthrough();

/** Mastodon's MediaAttachment entity; `url` and `preview_url` are null while the file is processed. */
export const MediaAttachmentJson = z.object({
  id: z.string(),
  type: z.enum(["unknown", "image", "gifv", "video", "audio"]),
  url: z.string().nullable(),
  preview_url: z.string().nullable(),
  remote_url: z.string().nullable(),
  preview_remote_url: z.string().nullable(),
  text_url: z.string().nullable(),
  meta: MediaMetaJson,
  description: z.string().nullable(),
  blurhash: z.string().nullable(),
});

export type MediaAttachmentEntity = z.infer<typeof MediaAttachmentJson>;
export type MediaMeta = z.infer<typeof MediaMetaJson>;

/** The spec's upload types. */
export const UPLOAD_TYPES = ["IMAGE", "VIDEO", "AUDIO", "DOCUMENT"] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];

/** Where an upload stands: the spec's queues (submitted, in_progress, completed) plus the states around them. */
export const UPLOAD_STATES = ["awaiting_upload", "submitted", "in_progress", "completed", "failed", "unsupported"] as const;

/** The spec's upload metadata: file information, processing status and tags (camelCase, as the spec's own resources). */
export const UploadJson = z.object({
  id: z.string(),
  accountId: z.string(),
  type: z.enum(UPLOAD_TYPES),
  tags: z.array(z.string()),
  state: z.enum(UPLOAD_STATES),
  /** Mastodon's media type of the processed file. */
  mediaType: z.enum(["unknown", "image", "gifv", "video", "audio"]),
  fileName: z.string().nullable(),
  contentType: z.string().nullable(),
  declaredContentType: z.string().nullable(),
  sizeBytes: z.number(),
  url: z.string().nullable(),
  previewUrl: z.string().nullable(),
  remoteUrl: z.string().nullable(),
  description: z.string().nullable(),
  blurhash: z.string().nullable(),
  meta: MediaMetaJson,
  statusId: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  submittedAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  processedAt: z.string().nullable(),
  /** Milliseconds the processing took, once it ended. */
  processingMs: z.number().nullable(),
});
export type UploadEntity = z.infer<typeof UploadJson>;

/** What `POST /api/v1/uploads` answers: the upload, and where to PUT its content before `uploadUrlExpiresAt`. */
export const CreatedUploadJson = z.object({
  upload: UploadJson,
  uploadUrl: z.string(),
  uploadUrlExpiresAt: z.string(),
});

/** One step of an upload's processing. */
export const UploadLogEntryJson = z.object({
  id: z.string(),
  uploadId: z.string(),
  step: z.string(),
  outcome: z.enum(["started", "succeeded", "failed", "skipped"]),
  message: z.string().nullable(),
  at: z.string(),
});
export type UploadLogEntryEntity = z.infer<typeof UploadLogEntryJson>;

/** A user's storage: what is used, per type, and the limits. */
export const UserStorageJson = z.object({
  userId: z.string(),
  usedBytes: z.number(),
  fileCount: z.number(),
  countsByType: z.object({ IMAGE: z.number(), VIDEO: z.number(), AUDIO: z.number(), DOCUMENT: z.number() }),
  bytesByType: z.object({ IMAGE: z.number(), VIDEO: z.number(), AUDIO: z.number(), DOCUMENT: z.number() }),
  limits: z.object({
    maxBytes: z.number(),
    maxFiles: z.number(),
    /** Largest single file accepted, per type. */
    maxFileBytes: z.object({ IMAGE: z.number(), VIDEO: z.number(), AUDIO: z.number(), DOCUMENT: z.number() }),
    /** Whether the limits are this user's own rather than the server's defaults. */
    override: z.boolean(),
  }),
});
export type UserStorageEntity = z.infer<typeof UserStorageJson>;
