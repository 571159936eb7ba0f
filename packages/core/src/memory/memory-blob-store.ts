import { assertValidBlobKey } from "../blob/blob-keys.js";
import type { BlobMetadata, BlobStore, StoredBlob } from "../ports/blob.js";

/** Chunk size for reads, so consumers meet multi-chunk bodies in tests as they will from disk or the network. */
const READ_CHUNK_BYTES = 64 * 1024;

async function collect(body: Uint8Array | ReadableStream<Uint8Array>): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body.slice();
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Blobs in memory; the reference adapter for tests. */
export class MemoryBlobStore implements BlobStore {
  readonly #objects = new Map<string, { bytes: Uint8Array; contentType: string }>();

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array>, options: { contentType: string }): Promise<BlobMetadata> {
    // Same key rules as the disk adapter, so a bad key fails in tests too.
    assertValidBlobKey(key);
    const bytes = await collect(body);
    this.#objects.set(key, { bytes, contentType: options.contentType });
    return { contentType: options.contentType, size: bytes.byteLength };
  }

  async get(key: string): Promise<StoredBlob | null> {
    assertValidBlobKey(key);
    const object = this.#objects.get(key);
    if (!object) return null;
    const bytes = object.bytes;
    let offset = 0;
    return {
      contentType: object.contentType,
      size: bytes.byteLength,
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.byteLength) {
            controller.close();
            return;
          }
          // Copies, so a consumer that mutates a chunk cannot change the stored object.
          controller.enqueue(bytes.slice(offset, offset + READ_CHUNK_BYTES));
          offset += READ_CHUNK_BYTES;
        },
      }),
    };
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    this.#objects.delete(key);
  }

  publicUrl(key: string): string | null {
    assertValidBlobKey(key);
    return null;
  }
}
