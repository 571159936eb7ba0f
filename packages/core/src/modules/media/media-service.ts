import type { Kysely } from "kysely";
import type { MediaAttachmentEntity, UploadEntity, UploadType } from "../../mastodon/entities/media.js";
import { type MediaUrls, serializeMediaAttachment, serializeUpload } from "../../mastodon/serializers/media.js";
import { KithError, isKithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import {
  attachMediaToStatus,
  deleteMediaAttachment,
  findMediaAttachment,
  findMediaAttachments,
  findMediaOfStatuses,
  insertMediaAttachment,
  type NewMediaAttachmentRow,
  updateMediaAttachment,
} from "./media-attachments-store.js";
import { holdUserRow } from "../accounts/accounts-store.js";
import { deleteUploadToken, findUploadToken, putUploadToken } from "./media-upload-tokens-store.js";
import type { Database, MediaAttachmentRow } from "../../ports/storage-schema.js";
import { constantTimeEqual, hashSecret, newToken } from "../auth/secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import { DEFAULT_FFMPEG_PATHS, type FfmpegPaths, ffmpegAvailable } from "./ffmpeg.js";
import { MediaFileError, blurhashOf, previewOf } from "./image-processor.js";
import { displayFileName, normalizeTags, parseFocus, uploadTypeOfMastodonType } from "./media-input.js";
import { keyFileName, mediaBlobKey } from "./media-keys.js";
import { MEDIA_QUEUE, type MediaJobPayload, MediaProcessor } from "./media-processor.js";
import { type DetectedType, detectMediaType, extensionOf, largestFileBytes, maxFileBytes } from "./media-types.js";
import { RemoteMedia } from "./remote-media.js";
import { StorageQuotas } from "./storage-quota.js";
import { UploadAdmin } from "./upload-admin.js";
import { UploadLog } from "./upload-log.js";

/** A file handed over whole (multipart), processed through the same pipeline as two-step uploads. */
export interface IngestFileInput {
  readonly accountId: string;
  readonly file: File;
  /** The type the caller expects (IMAGE for avatars and headers); a file of another type is refused. */
  readonly uploadType?: UploadType;
  readonly tags: readonly string[];
  readonly description?: string;
  /** Mastodon's `"x,y"`, each from -1.0 to 1.0. */
  readonly focus?: string;
  /** A custom preview image (Mastodon's `thumbnail`). */
  readonly thumbnail?: File;
}

/** The first step of the spec's two-step upload. */
export interface CreateUploadInput {
  readonly accountId: string;
  readonly type: UploadType;
  readonly tags: readonly string[];
  /** For display only. */
  readonly fileName?: string;
  /** What the client says it will send; recorded, never trusted: the content decides. */
  readonly contentType?: string;
  /** The size the client will send, checked against the limits and the quota at once when given. */
  readonly sizeBytes?: number;
  readonly description?: string;
  readonly focus?: string;
}

export interface CreatedUpload {
  readonly upload: UploadEntity;
  readonly uploadUrl: string;
  readonly uploadUrlExpiresAt: string;
}

export interface PutContentInput {
  readonly accountId: string;
  readonly uploadId: string;
  readonly token: string;
  /** Reads the body, refusing more than `maxBytes` (413). Called only once the URL is known to be good. */
  readonly read: (maxBytes: number) => Promise<Uint8Array>;
}

/** Media of another server, recorded from federation and fetched when first needed. */
export interface RegisterRemoteInput {
  readonly accountId: string;
  readonly remoteUrl: string;
  /** Mastodon's media type as the other server says (image, video, gifv, audio), if it does. */
  readonly type?: string;
  readonly description?: string | null;
  readonly blurhash?: string | null;
  readonly focus?: { x: number; y: number } | null;
  readonly tags?: readonly string[];
}

/** What serving a media file needs: the blob, or where the file lives now. */
export type MediaFile =
  | {
      readonly kind: "blob";
      readonly body: ReadableStream<Uint8Array>;
      readonly contentType: string;
      readonly size: number;
      readonly download: boolean;
    }
  | { readonly kind: "redirect"; readonly location: string };

export interface MediaServiceOptions {
  /** @default "ffmpeg" and "ffprobe" on PATH */
  readonly ffmpeg?: FfmpegPaths;
}

/** Mastodon's media type of an upload type, until processing says more (gifv). */
const MASTODON_TYPE_OF: Readonly<Record<UploadType, string>> = { IMAGE: "image", VIDEO: "video", AUDIO: "audio", DOCUMENT: "unknown" };

/** How long an upload URL may be used. */
const UPLOAD_URL_TTL_MS = 15 * 60_000;

async function fileBytes(file: File): Promise<Uint8Array> {
  return new Uint8Array(await file.arrayBuffer());
}

/**
 * Uploads and media: the spec's two-step uploads, Mastodon's media API,
 * processing on the job queue, quotas, remote media, and what statuses and
 * profiles need to attach and show media.
 */
export class MediaService {
  readonly quotas: StorageQuotas;
  readonly log: UploadLog;
  readonly admin: UploadAdmin;
  readonly #processor: MediaProcessor;
  readonly #remote: RemoteMedia;
  readonly #ffmpeg: FfmpegPaths;
  readonly #logger = getLogger(["media"]);

  constructor(
    private readonly deps: ServiceDeps,
    options: MediaServiceOptions = {},
  ) {
    this.#ffmpeg = options.ffmpeg ?? DEFAULT_FFMPEG_PATHS;
    this.log = new UploadLog(deps);
    this.quotas = new StorageQuotas(deps);
    this.#processor = new MediaProcessor(deps, this.log, this.#ffmpeg);
    this.#remote = new RemoteMedia(deps, this.log);
    this.admin = new UploadAdmin(deps, this.quotas, this.log, (row) => this.urlsOf(row));
    deps.queue.handle(MEDIA_QUEUE, (payload) => this.#work(payload), {
      description: "Processes uploads: images resized, stripped and thumbnailed; video and audio probed and transcoded",
      concurrency: 2,
    });
  }

  // --- What statuses and profiles call ---

  /**
   * Attaches media to a status, inside the caller's transaction: each must be
   * the author's, attached to no other status, and processed. 422 otherwise.
   */
  async attachToStatus(db: Kysely<Database>, input: { accountId: string; statusId: string; mediaIds: readonly string[] }): Promise<void> {
    const ids = [...new Set(input.mediaIds)];
    if (ids.length === 0) return;
    const max = this.deps.config.limits.statuses.maxMediaAttachments;
    if (ids.length > max) throw new KithError("media.too_many", { message: `A post has at most ${max} media attachments` });
    await this.#checkAttachable(db, input.accountId, ids, input.statusId);
    const changed = await attachMediaToStatus(db, { ...input, mediaIds: ids, now: this.deps.clock.now().toISOString() });
    // Another status took one of them between the read and the write.
    if (changed !== ids.length) throw new KithError("media.already_attached");
  }

  /** Refuses media a new status of `accountId` could not carry: unknown, someone else's, attached already or not processed. */
  async checkAttachable(accountId: string, mediaIds: readonly string[]): Promise<void> {
    await this.#checkAttachable(this.deps.storage.db, accountId, [...new Set(mediaIds)], null);
  }

  async #checkAttachable(db: Kysely<Database>, accountId: string, ids: readonly string[], statusId: string | null): Promise<void> {
    const rows = new Map((await findMediaAttachments(db, ids)).map((row) => [row.id, row]));
    for (const id of ids) {
      const row = rows.get(id);
      if (!row || row.account_id !== accountId)
        throw new KithError("media.not_found", { details: [{ field: "media_ids", message: `Unknown media ${id}` }] });
      if (row.status_id !== null && row.status_id !== statusId)
        throw new KithError("media.already_attached", { details: [{ field: "media_ids", message: id }] });
      if (row.state !== "completed") throw new KithError("media.not_ready", { details: [{ field: "media_ids", message: id }] });
    }
  }

  /** The attachments of these statuses, one query, each status's in id order. */
  async renderForStatuses(statusIds: readonly string[]): Promise<Map<string, MediaAttachmentEntity[]>> {
    const result = new Map<string, MediaAttachmentEntity[]>();
    for (const row of await findMediaOfStatuses(this.deps.storage.db, statusIds)) {
      if (!row.status_id) continue;
      const list = result.get(row.status_id) ?? [];
      list.push(serializeMediaAttachment(row, this.urlsOf(row)));
      result.set(row.status_id, list);
    }
    return result;
  }

  async render(ids: readonly string[]): Promise<Map<string, MediaAttachmentEntity>> {
    const rows = await findMediaAttachments(this.deps.storage.db, ids);
    return new Map(rows.map((row) => [row.id, serializeMediaAttachment(row, this.urlsOf(row))]));
  }

  /** Where a processed attachment is served (avatars, headers); null when there is nothing to show yet. */
  async publicUrl(mediaId: string): Promise<{ url: string; previewUrl: string } | null> {
    return (await this.publicUrls([mediaId])).get(mediaId) ?? null;
  }

  async publicUrls(ids: readonly string[]): Promise<Map<string, { url: string; previewUrl: string; contentType: string | null }>> {
    const result = new Map<string, { url: string; previewUrl: string; contentType: string | null }>();
    for (const row of await findMediaAttachments(this.deps.storage.db, ids)) {
      const urls = this.urlsOf(row);
      if (urls.url) result.set(row.id, { url: urls.url, previewUrl: urls.previewUrl ?? urls.url, contentType: row.content_type });
    }
    return result;
  }

  /** Stores and processes a file at once (avatars, headers, `POST /api/v1/media`); 422 when it cannot be processed. */
  async ingestFile(input: IngestFileInput): Promise<MediaAttachmentEntity> {
    const row = await this.#acceptFile(input);
    const done = await this.#processor.run(row.id);
    if (done?.state !== "completed") {
      throw new KithError("media.processing_failed", { message: done?.error ?? "The file could not be processed" });
    }
    return serializeMediaAttachment(done, this.urlsOf(done));
  }

  /** Stores a file and queues its processing (`POST /api/v2/media`); `processed` tells whether it is done already. */
  async submitFile(input: IngestFileInput): Promise<{ media: MediaAttachmentEntity; processed: boolean }> {
    const row = await this.#acceptFile(input);
    await this.deps.queue.enqueue(MEDIA_QUEUE, { mediaId: row.id } satisfies MediaJobPayload);
    const current = (await findMediaAttachment(this.deps.storage.db, row.id)) ?? row;
    return { media: serializeMediaAttachment(current, this.urlsOf(current)), processed: current.state === "completed" };
  }

  // --- Mastodon's media API on the caller's own attachments ---

  /** One of the caller's attachments that no status uses yet; 404 for anyone else's. `state` tells clients whether to keep polling. */
  async getOwn(
    accountId: string,
    mediaId: string,
  ): Promise<{ media: MediaAttachmentEntity; state: MediaAttachmentRow["state"]; error: string | null }> {
    const row = await this.#unattached(accountId, mediaId);
    return { media: serializeMediaAttachment(row, this.urlsOf(row)), state: row.state, error: row.error };
  }

  /** Changes the description, focal point or custom preview of one of the caller's attachments. */
  async updateOwn(
    accountId: string,
    mediaId: string,
    changes: { description?: string; focus?: string; thumbnail?: File },
  ): Promise<{ media: MediaAttachmentEntity; state: MediaAttachmentRow["state"] }> {
    const row = await this.#unattached(accountId, mediaId);
    const now = this.deps.clock.now().toISOString();
    const update: Parameters<typeof updateMediaAttachment>[2] = { updated_at: now };
    if (changes.description !== undefined) update.description = this.#description(changes.description);
    if (changes.focus !== undefined) {
      const focus = parseFocus(changes.focus);
      const meta = JSON.parse(row.meta) as Record<string, unknown>;
      if (focus) meta.focus = focus;
      else delete meta.focus;
      update.meta = JSON.stringify(meta);
    }
    if (changes.thumbnail) Object.assign(update, await this.#customThumbnail(row.id, changes.thumbnail));
    await updateMediaAttachment(this.deps.storage.db, row.id, update);
    const updated = (await findMediaAttachment(this.deps.storage.db, row.id)) ?? row;
    return { media: serializeMediaAttachment(updated, this.urlsOf(updated)), state: updated.state };
  }

  /** Deletes one of the caller's attachments that no status uses, with its files. */
  async deleteOwn(accountId: string, mediaId: string): Promise<MediaAttachmentEntity> {
    const row = await this.#own(accountId, mediaId, "media.missing");
    if (row.status_id !== null) throw new KithError("media.attached");
    const entity = serializeMediaAttachment(row, this.urlsOf(row));
    await deleteMediaAttachment(this.deps.storage.db, row.id);
    for (const key of [row.original_key, row.file_key, row.thumbnail_key]) if (key) await this.deps.blob.delete(key);
    return entity;
  }

  // --- The spec's two-step upload ---

  /** Creates an upload awaiting its content and the short-lived URL to PUT the content to. */
  async createUpload(input: CreateUploadInput): Promise<CreatedUpload> {
    const tags = normalizeTags(input.tags);
    const focus = parseFocus(input.focus);
    const description = input.description === undefined ? null : this.#description(input.description);
    if (input.sizeBytes !== undefined) this.#assertSize(input.type, input.sizeBytes);
    await this.quotas.assertRoom(input.accountId, input.sizeBytes ?? 0, { newFile: true });
    const now = this.deps.clock.now();
    const id = this.deps.ids.next("media");
    const token = newToken(this.deps.random);
    const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_MS).toISOString();
    await this.deps.storage.transaction(async (trx) => {
      // Checked again holding the user's row, so concurrent creations cannot pass the file count together.
      await holdUserRow(trx, input.accountId, now.toISOString());
      await this.quotas.assertRoom(input.accountId, input.sizeBytes ?? 0, { newFile: true }, trx);
      await insertMediaAttachment(trx, {
        id,
        account_id: input.accountId,
        status_id: null,
        type: MASTODON_TYPE_OF[input.type],
        upload_type: input.type,
        tags: JSON.stringify(tags),
        state: "awaiting_upload",
        content_type: null,
        declared_content_type: input.contentType?.slice(0, 255) ?? null,
        file_name: displayFileName(input.fileName),
        original_key: null,
        file_key: null,
        thumbnail_key: null,
        meta: JSON.stringify(focus ? { focus } : {}),
        blurhash: null,
        description,
        remote_url: null,
        error: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        processed_at: null,
      });
      await putUploadToken(trx, {
        upload_id: id,
        account_id: input.accountId,
        token_hash: hashSecret(token),
        expires_at: expiresAt,
        created_at: now.toISOString(),
      });
    });
    await this.log.record(id, "create", "succeeded", `${input.type} upload created`);
    const row = await this.#own(input.accountId, id, "upload.not_found");
    const uploadUrl = `${this.deps.config.origin}/api/v1/uploads/${id}/content?token=${token}`;
    return { upload: serializeUpload(row, this.urlsOf(row)), uploadUrl, uploadUrlExpiresAt: expiresAt };
  }

  /**
   * The second step: the content arrives at the upload URL. The URL must be
   * the upload's, unexpired, and used by its owner; the content is checked
   * (real type, size, quota) before it is stored, then processing is queued.
   */
  async putContent(input: PutContentInput): Promise<UploadEntity> {
    const row = await findMediaAttachment(this.deps.storage.db, input.uploadId);
    const token = row ? await findUploadToken(this.deps.storage.db, row.id) : null;
    const now = this.deps.clock.now();
    const valid =
      row !== null &&
      token !== null &&
      row.account_id === input.accountId &&
      token.account_id === input.accountId &&
      constantTimeEqual(hashSecret(input.token), token.token_hash) &&
      Date.parse(token.expires_at) > now.getTime();
    if (!row || !valid) throw new KithError("upload.url_invalid");
    if (row.state !== "awaiting_upload") throw new KithError("upload.content_received");
    const type = row.upload_type as UploadType;
    const report = await this.quotas.report(input.accountId);
    const room = Math.max(0, report.limits.maxBytes - report.usedBytes);
    const bytes = await input
      .read(maxFileBytes(this.deps.config.limits)[type] ?? largestFileBytes(this.deps.config.limits))
      .catch(async (error: unknown) => {
        await this.log.record(row.id, "upload", "failed", error instanceof Error ? error.message : "The content could not be read");
        throw error;
      });
    if (bytes.byteLength > room) {
      await this.log.record(row.id, "quota", "failed", `${bytes.byteLength} bytes; ${room} left`);
      throw new KithError("media.quota_exceeded", {
        message: `This file needs ${bytes.byteLength} bytes; ${room} of your ${report.limits.maxBytes} are left`,
      });
    }
    const detected = await this.#validate(row.id, bytes, type);
    const key = mediaBlobKey(row.id, "upload", bytes, extensionOf(detected.mime));
    await this.deps.blob.put(key, bytes, { contentType: detected.mime });
    const at = this.deps.clock.now().toISOString();
    const moved = await this.deps.storage
      .transaction(async (trx) => {
        // Checked again holding the user's row: concurrent contents that each fit cannot pass together.
        await holdUserRow(trx, input.accountId, at);
        await this.quotas.assertRoom(input.accountId, bytes.byteLength, { newFile: false }, trx);
        const changed = await updateMediaAttachment(
          trx,
          row.id,
          {
            state: "submitted",
            original_key: key,
            content_type: detected.mime,
            size_bytes: bytes.byteLength,
            submitted_at: at,
            updated_at: at,
          },
          ["awaiting_upload"],
        );
        if (!changed) return false;
        await deleteUploadToken(trx, row.id);
        await this.deps.queue.enqueue(MEDIA_QUEUE, { mediaId: row.id } satisfies MediaJobPayload, { db: trx });
        return true;
      })
      .catch(async (error: unknown) => {
        await this.deps.blob.delete(key);
        if (isKithError(error) && error.code === "media.quota_exceeded") await this.log.record(row.id, "quota", "failed", error.message);
        throw error;
      });
    if (!moved) {
      await this.deps.blob.delete(key);
      throw new KithError("upload.content_received");
    }
    await this.log.record(row.id, "upload", "succeeded", `${bytes.byteLength} bytes of ${detected.mime}`);
    const updated = await this.#own(input.accountId, row.id, "upload.not_found");
    return serializeUpload(updated, this.urlsOf(updated));
  }

  /** One of the caller's uploads; 404 for anyone else's. */
  async getUpload(accountId: string, uploadId: string): Promise<UploadEntity> {
    const row = await this.#own(accountId, uploadId, "upload.not_found");
    return serializeUpload(row, this.urlsOf(row));
  }

  // --- Remote media ---

  /**
   * Records an attachment of another server's status. Nothing is fetched now:
   * the file is fetched, checked and processed like an upload the first
   * time it is asked for.
   */
  async registerRemote(input: RegisterRemoteInput, db: Kysely<Database> = this.deps.storage.db): Promise<MediaAttachmentEntity> {
    let url: URL;
    try {
      url = new URL(input.remoteUrl);
    } catch {
      throw new KithError("media.remote_refused", { message: "Not a URL" });
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new KithError("media.remote_refused", { message: "Only http and https URLs" });
    const now = this.deps.clock.now().toISOString();
    const type = input.type && ["image", "gifv", "video", "audio"].includes(input.type) ? input.type : "unknown";
    const row = {
      id: this.deps.ids.next("media"),
      account_id: input.accountId,
      status_id: null,
      type,
      upload_type: uploadTypeOfMastodonType(input.type),
      tags: JSON.stringify(normalizeTags(input.tags ?? [])),
      state: "awaiting_upload" as const,
      content_type: null,
      declared_content_type: null,
      file_name: null,
      original_key: null,
      file_key: null,
      thumbnail_key: null,
      meta: JSON.stringify(input.focus ? { focus: input.focus } : {}),
      blurhash: input.blurhash ?? null,
      description: input.description?.slice(0, this.deps.config.limits.mediaAttachments.descriptionLimit) ?? null,
      remote_url: url.href,
      error: null,
      created_at: now,
      updated_at: now,
      processed_at: null,
    };
    await insertMediaAttachment(db, row);
    const stored = (await findMediaAttachment(db, row.id)) as MediaAttachmentRow;
    return serializeMediaAttachment(stored, this.urlsOf(stored));
  }

  /** Fetches and processes a remote attachment now if it was not yet; returns it as it ends. */
  async ensureFetched(mediaId: string): Promise<MediaAttachmentRow | null> {
    const row = await findMediaAttachment(this.deps.storage.db, mediaId);
    if (!row || row.remote_url === null || row.state !== "awaiting_upload") return row;
    const submitted = await this.#remote.fetchInto(row);
    if (!submitted) return findMediaAttachment(this.deps.storage.db, mediaId);
    return this.#processor.run(mediaId);
  }

  // --- Serving ---

  /**
   * The file a public media URL names. `fileName` is matched against the
   * names of the attachment's own keys, so no client text reaches the blob
   * store; `original` and `small` are stable aliases that redirect (and
   * fetch remote media first).
   */
  async openFile(mediaId: string, fileName: string): Promise<MediaFile | null> {
    let row = await findMediaAttachment(this.deps.storage.db, mediaId);
    if (!row) return null;
    if (fileName === "original" || fileName === "small") {
      if (row.remote_url !== null && row.state === "awaiting_upload") row = await this.ensureFetched(mediaId).catch(() => null);
      if (row?.state !== "completed") return null;
      const urls = this.urlsOf(row);
      const location = fileName === "original" ? urls.url : urls.previewUrl;
      return location ? { kind: "redirect", location } : null;
    }
    const key = [row.file_key, row.thumbnail_key].find((candidate) => candidate !== null && keyFileName(candidate) === fileName);
    if (!key) return null;
    const blob = await this.deps.blob.get(key);
    if (!blob) return null;
    return { kind: "blob", body: blob.body, contentType: blob.contentType, size: blob.size, download: row.upload_type === "DOCUMENT" };
  }

  /** Where clients fetch an attachment's renditions. */
  urlsOf(row: MediaAttachmentRow): MediaUrls {
    const origin = this.deps.config.origin;
    if (row.state === "completed" && row.file_key) {
      const url = this.#blobUrl(row.id, row.file_key);
      const previewUrl = row.thumbnail_key ? this.#blobUrl(row.id, row.thumbnail_key) : row.type === "image" ? url : null;
      return { url, previewUrl };
    }
    if (row.remote_url !== null && row.state === "awaiting_upload") {
      return { url: `${origin}/media/${row.id}/original`, previewUrl: `${origin}/media/${row.id}/small` };
    }
    // A custom preview can be shown before the file is processed.
    return { url: null, previewUrl: row.thumbnail_key ? this.#blobUrl(row.id, row.thumbnail_key) : null };
  }

  #blobUrl(mediaId: string, key: string): string {
    return this.deps.blob.publicUrl(key) ?? `${this.deps.config.origin}/media/${mediaId}/${keyFileName(key)}`;
  }

  // --- Internals ---

  async #work(payload: unknown): Promise<void> {
    const mediaId = (payload as Partial<MediaJobPayload> | null)?.mediaId;
    if (typeof mediaId !== "string") {
      this.#logger.warn("A media job without a media id was dropped");
      return;
    }
    await this.#processor.run(mediaId);
  }

  async #own(accountId: string, id: string, missing: "media.missing" | "upload.not_found"): Promise<MediaAttachmentRow> {
    const row = await findMediaAttachment(this.deps.storage.db, id);
    if (!row || row.account_id !== accountId || row.remote_url !== null) throw new KithError(missing);
    return row;
  }

  /** As Mastodon: the media API reaches only attachments no status uses yet; a status's media change with the status. */
  async #unattached(accountId: string, id: string): Promise<MediaAttachmentRow> {
    const row = await this.#own(accountId, id, "media.missing");
    if (row.status_id !== null) throw new KithError("media.missing");
    return row;
  }

  #description(value: string): string | null {
    const limit = this.deps.config.limits.mediaAttachments.descriptionLimit;
    if (value.length > limit) {
      throw new KithError("media.invalid", {
        message: `Descriptions are at most ${limit} characters`,
        details: [{ field: "description", message: "Too long" }],
      });
    }
    return value === "" ? null : value;
  }

  #assertSize(type: UploadType, size: number): void {
    const max = maxFileBytes(this.deps.config.limits)[type];
    if (size > max) throw new KithError("media.too_large", { message: `${type} files are at most ${max} bytes` });
  }

  /** The content's real type, checked against the expected type and the per-type size limit; refusals are logged. */
  async #validate(uploadId: string | null, bytes: Uint8Array, expected: UploadType | undefined): Promise<DetectedType> {
    const refuse = async (error: KithError): Promise<never> => {
      if (uploadId) await this.log.record(uploadId, "validate", "failed", error.message);
      throw error;
    };
    if (bytes.byteLength === 0) return refuse(new KithError("media.invalid", { message: "The file is empty" }));
    const detected = await detectMediaType(bytes, this.deps.config.limits);
    if (!detected) return refuse(new KithError("media.unsupported_type", { message: "The file's content is of no supported type" }));
    if (expected && detected.uploadType !== expected) {
      return refuse(new KithError("media.type_mismatch", { message: `The content is ${detected.mime}, not ${expected}` }));
    }
    const max = maxFileBytes(this.deps.config.limits)[detected.uploadType];
    if (bytes.byteLength > max)
      return refuse(new KithError("media.too_large", { message: `${detected.uploadType} files are at most ${max} bytes` }));
    if (uploadId) await this.log.record(uploadId, "validate", "succeeded", detected.mime);
    return detected;
  }

  /** Checks a whole file and stores it as a submitted upload, ready for processing. */
  async #acceptFile(input: IngestFileInput): Promise<MediaAttachmentRow> {
    const tags = normalizeTags(input.tags);
    const focus = parseFocus(input.focus);
    const description = input.description === undefined ? null : this.#description(input.description);
    const bytes = await fileBytes(input.file);
    const detected = await this.#validate(null, bytes, input.uploadType);
    if ((detected.uploadType === "VIDEO" || detected.uploadType === "AUDIO") && !(await ffmpegAvailable(this.#ffmpeg))) {
      throw new KithError("media.unsupported_type", { message: "This server cannot process video or audio" });
    }
    await this.quotas.assertRoom(input.accountId, bytes.byteLength, { newFile: true });
    const id = this.deps.ids.next("media");
    const key = mediaBlobKey(id, "upload", bytes, extensionOf(detected.mime));
    await this.deps.blob.put(key, bytes, { contentType: detected.mime });
    const now = this.deps.clock.now().toISOString();
    const row: NewMediaAttachmentRow = {
      id,
      account_id: input.accountId,
      status_id: null,
      type: MASTODON_TYPE_OF[detected.uploadType],
      upload_type: detected.uploadType,
      tags: JSON.stringify(tags),
      state: "submitted",
      content_type: detected.mime,
      declared_content_type: input.file.type ? input.file.type.slice(0, 255) : null,
      file_name: displayFileName(input.file.name),
      size_bytes: bytes.byteLength,
      original_key: key,
      file_key: null,
      thumbnail_key: null,
      meta: JSON.stringify(focus ? { focus } : {}),
      blurhash: null,
      description,
      remote_url: null,
      error: null,
      created_at: now,
      updated_at: now,
      submitted_at: now,
      processed_at: null,
    };
    await this.deps.storage
      .transaction(async (trx) => {
        // Checked again holding the user's row: concurrent files that each fit cannot pass together.
        await holdUserRow(trx, input.accountId, now);
        await this.quotas.assertRoom(input.accountId, bytes.byteLength, { newFile: true }, trx);
        await insertMediaAttachment(trx, row);
      })
      .catch(async (error: unknown) => {
        await this.deps.blob.delete(key);
        throw error;
      });
    await this.log.record(id, "upload", "succeeded", `${bytes.byteLength} bytes of ${detected.mime}`);
    if (input.thumbnail) {
      await updateMediaAttachment(this.deps.storage.db, id, await this.#customThumbnail(id, input.thumbnail));
    }
    return (await findMediaAttachment(this.deps.storage.db, id)) as MediaAttachmentRow;
  }

  /** A custom preview: an image, made into the `small` rendition; processing keeps it. */
  async #customThumbnail(mediaId: string, file: File): Promise<{ thumbnail_key: string; blurhash: string; custom_thumbnail: boolean }> {
    const bytes = await fileBytes(file);
    await this.#validate(mediaId, bytes, "IMAGE");
    try {
      const small = await previewOf(bytes, this.#processor.imageLimits());
      const key = mediaBlobKey(mediaId, "small", small.bytes, extensionOf(small.contentType));
      await this.deps.blob.put(key, small.bytes, { contentType: small.contentType });
      await this.log.record(mediaId, "thumbnail", "succeeded", "custom preview");
      return { thumbnail_key: key, blurhash: await blurhashOf(small.bytes), custom_thumbnail: true };
    } catch (error) {
      const message = error instanceof MediaFileError ? error.message : "The preview image cannot be decoded";
      await this.log.record(mediaId, "thumbnail", "failed", message);
      throw new KithError("media.processing_failed", { message });
    }
  }
}
