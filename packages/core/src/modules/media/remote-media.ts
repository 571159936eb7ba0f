import { OutgoingFetchError, type SafeFetch, createSafeFetch } from "../../platform/federation/safe-fetch.js";
import { updateMediaAttachment } from "./media-attachments-store.js";
import type { MediaAttachmentRow } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { messageOf } from "./image-processor.js";
import { mediaBlobKey } from "./media-keys.js";
import { detectMediaType, extensionOf, largestFileBytes, maxFileBytes } from "./media-types.js";
import type { UploadLog } from "./upload-log.js";

/** How long fetching one remote file may take. */
const REMOTE_FETCH_TIMEOUT_MS = 60_000;

/**
 * Fetches media of other servers into the upload pipeline: through the
 * federation's safe fetch (no loopback or private addresses unless the
 * config allows them, bounded redirects, time and size), then the same
 * type detection and size limits as local uploads.
 */
export class RemoteMedia {
  readonly #fetch: SafeFetch;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "blob" | "clock" | "config">,
    private readonly log: UploadLog,
  ) {
    this.#fetch = createSafeFetch({
      allowPrivateAddress: deps.config.allowPrivateAddress,
      timeoutMs: REMOTE_FETCH_TIMEOUT_MS,
      maxBodyBytes: largestFileBytes(deps.config.limits),
    });
  }

  /**
   * Fetches the file of a remote attachment awaiting it and stores it as a
   * submitted upload. Returns false when it could not (the attachment is
   * then failed, with the reason in its log) or another request took it.
   */
  async fetchInto(row: MediaAttachmentRow): Promise<boolean> {
    if (!row.remote_url) return false;
    const db = this.deps.storage.db;
    await this.log.record(row.id, "fetch", "started", row.remote_url);
    let bytes: Uint8Array;
    try {
      const response = await this.#fetch(row.remote_url, { headers: { accept: "image/*, video/*, audio/*, */*;q=0.5" } });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      const reason = error instanceof OutgoingFetchError ? `refused: ${error.message}` : messageOf(error);
      return this.#fail(row, `Fetching the remote file failed: ${reason}`);
    }
    const detected = await detectMediaType(bytes, this.deps.config.limits);
    if (!detected) return this.#fail(row, "The remote file's content is of no supported type");
    const max = maxFileBytes(this.deps.config.limits)[detected.uploadType];
    if (bytes.byteLength > max) return this.#fail(row, `The remote file is over the ${max} bytes allowed for ${detected.uploadType}`);
    const key = mediaBlobKey(row.id, "upload", bytes, extensionOf(detected.mime));
    await this.deps.blob.put(key, bytes, { contentType: detected.mime });
    const now = this.deps.clock.now().toISOString();
    const moved = await updateMediaAttachment(
      db,
      row.id,
      {
        state: "submitted",
        upload_type: detected.uploadType,
        original_key: key,
        content_type: detected.mime,
        size_bytes: bytes.byteLength,
        submitted_at: now,
        updated_at: now,
      },
      ["awaiting_upload"],
    );
    if (!moved) {
      await this.deps.blob.delete(key);
      return false;
    }
    await this.log.record(row.id, "fetch", "succeeded", `${bytes.byteLength} bytes of ${detected.mime}`);
    return true;
  }

  async #fail(row: MediaAttachmentRow, reason: string): Promise<false> {
    const now = this.deps.clock.now().toISOString();
    await updateMediaAttachment(this.deps.storage.db, row.id, { state: "failed", error: reason, processed_at: now, updated_at: now }, [
      "awaiting_upload",
    ]);
    await this.log.record(row.id, "fetch", "failed", reason);
    return false;
  }
}
