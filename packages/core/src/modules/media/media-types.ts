import type { UploadType } from "../../mastodon/entities/media.js";
import type { InstanceLimits } from "../../domain/limits.js";

/** What the content of a file is, judged from its bytes alone. */
export interface DetectedType {
  /** The canonical MIME type, as the instance document lists it. */
  readonly mime: string;
  readonly uploadType: UploadType;
}

/**
 * file-type's names for formats the instance document lists under another
 * name. Keys are what file-type reports, values what `supported_mime_types`
 * says.
 */
const ALIASES: Readonly<Record<string, string>> = {
  "audio/x-flac": "audio/flac",
  "audio/x-wav": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "audio/opus": "audio/ogg",
  "video/ogg": "audio/ogg",
  "audio/mp3": "audio/mpeg",
};

/** Documents: kept as they are, never rendered by the server. */
export const DOCUMENT_MIME_TYPES: readonly string[] = ["application/pdf"];

function uploadTypeOf(mime: string): UploadType | null {
  if (DOCUMENT_MIME_TYPES.includes(mime)) return "DOCUMENT";
  if (mime.startsWith("image/")) return "IMAGE";
  if (mime.startsWith("video/")) return "VIDEO";
  if (mime.startsWith("audio/")) return "AUDIO";
  return null;
}

/**
 * The type of a file from its content. Null when the content is of no type
 * the server accepts: the name and the declared type are never consulted,
 * so a script named `cat.png` stays a script.
 */
export async function detectMediaType(bytes: Uint8Array, limits: InstanceLimits): Promise<DetectedType | null> {
  // Loaded with the first upload, not with the server.
  const { fileTypeFromBuffer } = await import("file-type");
  const found = await fileTypeFromBuffer(bytes);
  if (!found) return null;
  const mime = ALIASES[found.mime] ?? found.mime;
  const accepted = limits.mediaAttachments.supportedMimeTypes.includes(mime) || DOCUMENT_MIME_TYPES.includes(mime);
  if (!accepted) return null;
  const uploadType = uploadTypeOf(mime);
  return uploadType ? { mime, uploadType } : null;
}

/** Largest file accepted for each upload type: the instance document's image and video limits (audio goes with video, as Mastodon does). */
export function maxFileBytes(limits: InstanceLimits): Readonly<Record<UploadType, number>> {
  const media = limits.mediaAttachments;
  return { IMAGE: media.imageSizeLimit, VIDEO: media.videoSizeLimit, AUDIO: media.videoSizeLimit, DOCUMENT: media.imageSizeLimit };
}

/** The largest of the per-type limits: the most any upload body may carry. */
export function largestFileBytes(limits: InstanceLimits): number {
  return Math.max(...Object.values(maxFileBytes(limits)));
}

/** File name extension of a processed file's MIME type, for its blob key and its URL. */
export function extensionOf(mime: string): string {
  const known: Readonly<Record<string, string>> = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/avif": "avif",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "video/quicktime": "mov",
    "audio/mpeg": "mp3",
    "audio/ogg": "ogg",
    "audio/wav": "wav",
    "audio/flac": "flac",
    "audio/mp4": "m4a",
    "application/pdf": "pdf",
  };
  return known[mime] ?? "bin";
}
