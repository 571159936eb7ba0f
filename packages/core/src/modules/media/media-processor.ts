import { getLogger } from "../../logging.js";
import { findMediaAttachment, updateMediaAttachment } from "./media-attachments-store.js";
import type { MediaAttachmentRow } from "../../ports/storage-schema.js";
import { toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { processAudioVideo } from "./av-processor.js";
import { type FfmpegPaths, ffmpegAvailable } from "./ffmpeg.js";
import { type ImageLimits, MediaFileError, type ProcessedMedia, messageOf, processImage } from "./image-processor.js";
import { mediaBlobKey } from "./media-keys.js";
import { detectMediaType, extensionOf } from "./media-types.js";
import type { UploadLog } from "./upload-log.js";

/** The job queue where uploads wait for processing. */
export const MEDIA_QUEUE = "media";

export interface MediaJobPayload {
  readonly mediaId: string;
}

async function readBlob(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

function focusOf(meta: string): { x: number; y: number } | null {
  try {
    const focus = (JSON.parse(meta) as { focus?: { x?: unknown; y?: unknown } }).focus;
    return typeof focus?.x === "number" && typeof focus.y === "number" ? { x: focus.x, y: focus.y } : null;
  } catch {
    return null;
  }
}

/**
 * Turns a submitted upload into served files: submitted -> in_progress ->
 * completed, or failed with the reason, or unsupported when the file needs
 * ffmpeg and it is not installed. Each step goes to the processing log.
 * Never throws for a bad file: the outcome is the upload's state.
 */
export class MediaProcessor {
  readonly #logger = getLogger(["media"]);

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "blob" | "clock" | "config">,
    private readonly log: UploadLog,
    private readonly ffmpeg: FfmpegPaths,
  ) {}

  imageLimits(): ImageLimits {
    const media = this.deps.config.limits.mediaAttachments;
    // Uploads up to the announced matrix limit are accepted and stored at
    // most at the video matrix size (4K UHD), as Mastodon stores images.
    return { maxInputPixels: media.imageMatrixLimit, maxOutputPixels: Math.min(media.imageMatrixLimit, media.videoMatrixLimit) };
  }

  /** Processes the upload if it waits for it; returns the upload as it ends, or null when there is none. */
  async run(mediaId: string): Promise<MediaAttachmentRow | null> {
    const db = this.deps.storage.db;
    const row = await findMediaAttachment(db, mediaId);
    if (!row) return null;
    if (row.state !== "submitted" && row.state !== "in_progress") return row;
    const started = this.deps.clock.now();
    const claimed = await updateMediaAttachment(
      db,
      mediaId,
      { state: "in_progress", started_at: started.toISOString(), updated_at: started.toISOString() },
      [row.state],
    );
    if (!claimed) return findMediaAttachment(db, mediaId);
    await this.log.record(mediaId, "process", "started", row.state === "in_progress" ? "resumed after an interruption" : null);
    try {
      const result = await this.#process(row);
      if (result === "unsupported") return await this.#finish(row, started, "unsupported", "ffmpeg is not installed on this server");
      await this.#store(row, started, result);
      await this.log.record(mediaId, "process", "succeeded", `${result.type}, ${result.file.bytes.byteLength} bytes`);
    } catch (error) {
      const reason = error instanceof MediaFileError ? error.message : `Processing failed: ${messageOf(error)}`;
      if (!(error instanceof MediaFileError)) this.#logger.warn("Processing upload {mediaId} failed: {error}", { mediaId, error });
      await this.#finish(row, started, "failed", reason);
    }
    return findMediaAttachment(db, mediaId);
  }

  async #process(row: MediaAttachmentRow): Promise<ProcessedMedia | "unsupported"> {
    if (!row.original_key) throw new MediaFileError("The upload has no content");
    const blob = await this.deps.blob.get(row.original_key);
    if (!blob) throw new MediaFileError("The uploaded content is missing from storage");
    const bytes = await readBlob(blob.body);
    const detected = await detectMediaType(bytes, this.deps.config.limits);
    if (!detected) throw new MediaFileError("The file's content is of no supported type");
    await this.log.record(row.id, "detect", "succeeded", detected.mime);
    switch (detected.uploadType) {
      case "IMAGE": {
        await this.log.record(row.id, "resize", "started");
        const image = await processImage(bytes, detected.mime, this.imageLimits(), focusOf(row.meta));
        await this.log.record(row.id, "resize", "succeeded", `${image.file.width}x${image.file.height}, metadata removed`);
        return image;
      }
      case "VIDEO":
      case "AUDIO": {
        if (!(await ffmpegAvailable(this.ffmpeg))) {
          await this.log.record(row.id, "transcode", "skipped", "ffmpeg is not installed");
          return "unsupported";
        }
        await this.log.record(row.id, "transcode", "started");
        const media = this.deps.config.limits.mediaAttachments;
        const transcoded = await processAudioVideo(bytes, detected.uploadType, this.ffmpeg, {
          ...this.imageLimits(),
          maxVideoPixels: media.videoMatrixLimit,
          maxFrameRate: media.videoFrameRateLimit,
        });
        await this.log.record(
          row.id,
          "transcode",
          "succeeded",
          `${transcoded.file.contentType}, ${transcoded.meta.length ?? "unknown length"}`,
        );
        return transcoded;
      }
      case "DOCUMENT":
        // Documents are kept as they came; they are served as downloads, never rendered here.
        return { type: "unknown", file: { bytes, contentType: detected.mime }, small: null, meta: {}, blurhash: null };
    }
  }

  async #store(row: MediaAttachmentRow, started: Date, result: ProcessedMedia): Promise<void> {
    const { blob } = this.deps;
    const fileKey = mediaBlobKey(row.id, "file", result.file.bytes, extensionOf(result.file.contentType));
    await blob.put(fileKey, result.file.bytes, { contentType: result.file.contentType });
    const keepThumbnail = toBool(row.custom_thumbnail) && row.thumbnail_key !== null;
    let thumbnailKey = keepThumbnail ? row.thumbnail_key : null;
    let thumbnailBytes = 0;
    if (!keepThumbnail && result.small) {
      thumbnailKey = mediaBlobKey(row.id, "small", result.small.bytes, extensionOf(result.small.contentType));
      await blob.put(thumbnailKey, result.small.bytes, { contentType: result.small.contentType });
      thumbnailBytes = result.small.bytes.byteLength;
      await this.log.record(row.id, "thumbnail", "succeeded", `${result.small.width}x${result.small.height}`);
    }
    const focus = focusOf(row.meta);
    const meta = { ...result.meta, ...(focus && { focus }) };
    const finished = this.deps.clock.now();
    await updateMediaAttachment(this.deps.storage.db, row.id, {
      state: "completed",
      type: result.type,
      file_key: fileKey,
      thumbnail_key: thumbnailKey,
      original_key: null,
      content_type: result.file.contentType,
      size_bytes: result.file.bytes.byteLength + thumbnailBytes,
      meta: JSON.stringify(meta),
      blurhash: keepThumbnail ? row.blurhash : result.blurhash,
      error: null,
      processed_at: finished.toISOString(),
      processing_ms: Math.max(0, finished.getTime() - started.getTime()),
      updated_at: finished.toISOString(),
    });
    await this.log.record(row.id, "store", "succeeded", fileKey.slice(fileKey.lastIndexOf("/") + 1));
    // The original may carry what processing removed (EXIF positions): it is not kept.
    if (row.original_key) await blob.delete(row.original_key);
  }

  async #finish(
    row: MediaAttachmentRow,
    started: Date,
    state: "failed" | "unsupported",
    reason: string,
  ): Promise<MediaAttachmentRow | null> {
    const finished = this.deps.clock.now();
    // A failed upload holds no storage; an unsupported one keeps its content for when ffmpeg is installed.
    const dropOriginal = state === "failed" && row.original_key !== null;
    if (dropOriginal && row.original_key) await this.deps.blob.delete(row.original_key);
    await updateMediaAttachment(this.deps.storage.db, row.id, {
      state,
      error: reason,
      ...(dropOriginal && { original_key: null }),
      processed_at: finished.toISOString(),
      processing_ms: Math.max(0, finished.getTime() - started.getTime()),
      updated_at: finished.toISOString(),
    });
    await this.log.record(row.id, "process", state === "failed" ? "failed" : "skipped", reason);
    return findMediaAttachment(this.deps.storage.db, row.id);
  }
}
