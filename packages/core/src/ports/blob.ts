/** Binary objects (uploads, media), addressed by server-chosen keys. */
export interface BlobMetadata {
  readonly contentType: string;
  readonly size: number;
}

export interface StoredBlob extends BlobMetadata {
  readonly body: ReadableStream<Uint8Array>;
}

export interface BlobStore {
  /** Stores bytes under `key`, replacing what was there. */
  put(key: string, body: Uint8Array | ReadableStream<Uint8Array>, options: { contentType: string }): Promise<BlobMetadata>;
  /** The object, or null when there is none. */
  get(key: string): Promise<StoredBlob | null>;
  /** Removes the object; no error when it is absent. */
  delete(key: string): Promise<void>;
  /** A URL clients can fetch the object from, when the store serves objects itself; null when Kith must serve them. */
  publicUrl(key: string): string | null;
}
