import type { MediaAttachmentRow } from "../../ports/storage-schema.js";
import type { MediaAttachmentEntity, MediaMeta, UploadEntity, UploadLogEntryEntity, UploadType } from "../entities/media.js";
import { UPLOAD_TYPES } from "../entities/media.js";

/** Where clients fetch an attachment's file and preview; null while there is nothing to fetch yet. */
export interface MediaUrls {
  readonly url: string | null;
  readonly previewUrl: string | null;
}

const MASTODON_TYPES = new Set(["unknown", "image", "gifv", "video", "audio"]);

function mastodonType(value: string): MediaAttachmentEntity["type"] {
  return MASTODON_TYPES.has(value) ? (value as MediaAttachmentEntity["type"]) : "unknown";
}

function uploadType(value: string): UploadType {
  return (UPLOAD_TYPES as readonly string[]).includes(value) ? (value as UploadType) : "DOCUMENT";
}

function parseObject(text: string): MediaMeta {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as MediaMeta) : {};
  } catch {
    return {};
  }
}

function parseStrings(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** Mastodon's MediaAttachment entity of one stored attachment. */
export function serializeMediaAttachment(row: MediaAttachmentRow, urls: MediaUrls): MediaAttachmentEntity {
  return {
    id: row.id,
    type: mastodonType(row.type),
    url: urls.url,
    preview_url: urls.previewUrl,
    remote_url: row.remote_url,
    preview_remote_url: null,
    text_url: null,
    meta: parseObject(row.meta),
    description: row.description,
    blurhash: row.blurhash,
  };
}

/** The spec's upload metadata of one stored attachment. */
export function serializeUpload(row: MediaAttachmentRow, urls: MediaUrls): UploadEntity {
  return {
    id: row.id,
    accountId: row.account_id,
    type: uploadType(row.upload_type),
    tags: parseStrings(row.tags),
    state: row.state,
    mediaType: mastodonType(row.type),
    fileName: row.file_name,
    contentType: row.content_type,
    declaredContentType: row.declared_content_type,
    sizeBytes: Number(row.size_bytes),
    url: urls.url,
    previewUrl: urls.previewUrl,
    remoteUrl: row.remote_url,
    description: row.description,
    blurhash: row.blurhash,
    meta: parseObject(row.meta),
    statusId: row.status_id,
    error: row.error,
    createdAt: row.created_at,
    submittedAt: row.submitted_at,
    startedAt: row.started_at,
    processedAt: row.processed_at,
    processingMs: row.processing_ms,
  };
}

export function serializeUploadLogEntry(row: {
  id: string;
  upload_id: string;
  step: string;
  outcome: string;
  message: string | null;
  created_at: string;
}): UploadLogEntryEntity {
  const outcomes = ["started", "succeeded", "failed", "skipped"] as const;
  const outcome = (outcomes as readonly string[]).includes(row.outcome) ? (row.outcome as UploadLogEntryEntity["outcome"]) : "failed";
  return { id: row.id, uploadId: row.upload_id, step: row.step, outcome, message: row.message, at: row.created_at };
}
