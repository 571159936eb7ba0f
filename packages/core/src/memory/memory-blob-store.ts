import type { BlobMetadata, BlobStore, StoredBlob } from "../ports/blob.js";

async function collect(body: Uint8Array | ReadableStream<Uint8Array>): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body.slice();
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Blobs in memory; the reference adapter for tests. */
export class MemoryBlobStore implements BlobStore {
  readonly #objects = new Map<string, { bytes: Uint8Array; contentType: string }>();

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array>, options: { contentType: string }): Promise<BlobMetadata> {
    const bytes = await collect(body);
    this.#objects.set(key, { bytes, contentType: options.contentType });
    return { contentType: options.contentType, size: bytes.byteLength };
  }

  async get(key: string): Promise<StoredBlob | null> {
    const object = this.#objects.get(key);
    if (!object) return null;
    const bytes = object.bytes;
    return {
      contentType: object.contentType,
      size: bytes.byteLength,
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice());
          controller.close();
        },
      }),
    };
  }

  async delete(key: string): Promise<void> {
    this.#objects.delete(key);
  }

  publicUrl(): string | null {
    return null;
  }
}
