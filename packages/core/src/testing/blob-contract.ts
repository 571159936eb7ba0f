import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BlobStore } from "../ports/blob.js";

/** What a contract run needs from an adapter: a store on empty storage, and how to dispose of it. */
export interface BlobStoreUnderTest {
  readonly store: BlobStore;
  close(): Promise<void>;
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** A stream that hands out `chunks` one pull at a time, as an upload arrives. */
function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/**
 * A body of `totalBytes` made on demand in `chunkBytes` pieces, each byte
 * depending on its position so misordered or dropped chunks change the digest.
 * Returns the stream and the SHA-256 it should read back as.
 */
function generatedBody(totalBytes: number, chunkBytes: number): { stream: ReadableStream<Uint8Array>; sha256: string } {
  const piece = (offset: number): Uint8Array => {
    const chunk = new Uint8Array(Math.min(chunkBytes, totalBytes - offset));
    for (let i = 0; i < chunk.length; i++) chunk[i] = ((offset + i) * 31 + ((offset + i) >>> 11)) & 0xff;
    return chunk;
  };
  const hash = createHash("sha256");
  for (let offset = 0; offset < totalBytes; offset += chunkBytes) hash.update(piece(offset));
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= totalBytes) {
        controller.close();
        return;
      }
      controller.enqueue(piece(offset));
      offset += chunkBytes;
    },
  });
  return { stream, sha256: hash.digest("hex") };
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Reads a body chunk by chunk into a digest, so a large body is checked without holding it twice. */
async function digestOf(body: ReadableStream<Uint8Array>): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
    size += value.byteLength;
  }
  return { sha256: hash.digest("hex"), size };
}

async function text(store: BlobStore, key: string): Promise<string | null> {
  const blob = await store.get(key);
  return blob === null ? null : new TextDecoder().decode(await readAll(blob.body));
}

const ESCAPING_KEYS: readonly string[] = [
  "",
  "..",
  ".",
  "../x",
  "media/../../x",
  "media/..",
  "/etc/passwd",
  "/x",
  "a\\b",
  "..\\x",
  "C:\\x",
  "a\0b",
  "a//b",
  "a/",
  "a/./b",
  " a",
  "a b",
  "%2e%2e/x",
  "media/\u00e9.png",
];

/**
 * The blob port's contract. Every adapter runs it: `factory` must return a
 * store over empty storage each time it is called.
 */
export function describeBlobStoreContract(name: string, factory: () => Promise<BlobStoreUnderTest>): void {
  describe(`blob store contract: ${name}`, () => {
    let underTest: BlobStoreUnderTest;
    let store: BlobStore;

    beforeEach(async () => {
      underTest = await factory();
      store = underTest.store;
    });

    afterEach(async () => {
      await underTest.close();
    });

    it("round-trips bytes with their content type and size", async () => {
      const bytes = new Uint8Array([0, 1, 2, 254, 255, 10, 13, 0]);
      const metadata = await store.put("one.bin", bytes, { contentType: "application/octet-stream" });
      expect(metadata).toEqual({ contentType: "application/octet-stream", size: 8 });
      const blob = await store.get("one.bin");
      expect(blob).not.toBeNull();
      expect(blob?.contentType).toBe("application/octet-stream");
      expect(blob?.size).toBe(8);
      expect(await readAll(blob?.body ?? streamOf([]))).toEqual(bytes);
    });

    it("keeps its own copy: changing the caller's array after put changes nothing", async () => {
      const bytes = bytesOf("original");
      await store.put("copy.txt", bytes, { contentType: "text/plain" });
      bytes.fill(0);
      expect(await text(store, "copy.txt")).toBe("original");
    });

    it("stores an empty body", async () => {
      expect(await store.put("empty", new Uint8Array(0), { contentType: "text/plain" })).toEqual({ contentType: "text/plain", size: 0 });
      const blob = await store.get("empty");
      expect(blob?.size).toBe(0);
      expect((await readAll(blob?.body ?? streamOf([bytesOf("x")]))).byteLength).toBe(0);
    });

    it("round-trips a streamed body given in several chunks", async () => {
      const metadata = await store.put(
        "streamed.txt",
        streamOf([bytesOf("hello, "), bytesOf(""), bytesOf("streamed "), bytesOf("world")]),
        {
          contentType: "text/plain; charset=utf-8",
        },
      );
      expect(metadata).toEqual({ contentType: "text/plain; charset=utf-8", size: 21 });
      const blob = await store.get("streamed.txt");
      expect(blob?.contentType).toBe("text/plain; charset=utf-8");
      expect(blob?.size).toBe(21);
      expect(await text(store, "streamed.txt")).toBe("hello, streamed world");
    });

    it("round-trips a multi-megabyte streamed body byte for byte", async () => {
      // 8 MiB plus an odd tail in uneven chunks, so chunk boundaries never line up with any adapter's buffer size.
      const total = 8 * 1024 * 1024 + 12_345;
      const { stream, sha256 } = generatedBody(total, 100_003);
      const metadata = await store.put("media/large/video.mp4", stream, { contentType: "video/mp4" });
      expect(metadata).toEqual({ contentType: "video/mp4", size: total });
      const blob = await store.get("media/large/video.mp4");
      expect(blob?.size).toBe(total);
      expect(blob?.contentType).toBe("video/mp4");
      expect(await digestOf(blob?.body ?? streamOf([]))).toEqual({ sha256, size: total });
    }, 30_000);

    it("reads a large body back as a stream of several chunks, not one buffer", async () => {
      const total = 4 * 1024 * 1024;
      await store.put("chunks.bin", generatedBody(total, 65_536).stream, { contentType: "application/octet-stream" });
      const blob = await store.get("chunks.bin");
      const reader = (blob?.body ?? streamOf([])).getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      expect(first.value?.byteLength ?? 0).toBeLessThan(total);
      await reader.cancel();
    }, 30_000);

    it("reads the same object more than once", async () => {
      await store.put("twice.txt", bytesOf("again"), { contentType: "text/plain" });
      expect(await text(store, "twice.txt")).toBe("again");
      expect(await text(store, "twice.txt")).toBe("again");
    });

    it("replaces an object on overwrite, bytes, size and content type", async () => {
      await store.put("avatar", bytesOf("a much longer first version"), { contentType: "image/png" });
      const metadata = await store.put("avatar", streamOf([bytesOf("short")]), { contentType: "image/webp" });
      expect(metadata).toEqual({ contentType: "image/webp", size: 5 });
      const blob = await store.get("avatar");
      expect(blob?.contentType).toBe("image/webp");
      expect(blob?.size).toBe(5);
      expect(await text(store, "avatar")).toBe("short");
    });

    it("keeps the old object when a streamed overwrite fails part way", async () => {
      await store.put("keep.txt", bytesOf("old"), { contentType: "text/plain" });
      let sent = false;
      const failing = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!sent) {
            sent = true;
            controller.enqueue(bytesOf("partial new"));
          } else {
            controller.error(new Error("upload interrupted"));
          }
        },
      });
      await expect(store.put("keep.txt", failing, { contentType: "image/png" })).rejects.toThrow();
      const blob = await store.get("keep.txt");
      expect(blob?.contentType).toBe("text/plain");
      expect(await text(store, "keep.txt")).toBe("old");
    });

    it("leaves no object when a first streamed put fails", async () => {
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytesOf("partial"));
          controller.error(new Error("upload interrupted"));
        },
      });
      await expect(store.put("never.txt", failing, { contentType: "text/plain" })).rejects.toThrow();
      expect(await store.get("never.txt")).toBeNull();
    });

    it("returns null for a key that was never stored", async () => {
      expect(await store.get("missing")).toBeNull();
      expect(await store.get("media/ab/cd/missing.png")).toBeNull();
    });

    it("deletes, and deleting again or deleting a missing key is no error", async () => {
      await store.put("gone.txt", bytesOf("bye"), { contentType: "text/plain" });
      await store.delete("gone.txt");
      expect(await store.get("gone.txt")).toBeNull();
      await expect(store.delete("gone.txt")).resolves.toBeUndefined();
      await expect(store.delete("never/stored.txt")).resolves.toBeUndefined();
    });

    it("can store a key again after deleting it", async () => {
      await store.put("again.txt", bytesOf("first"), { contentType: "text/plain" });
      await store.delete("again.txt");
      await store.put("again.txt", bytesOf("second"), { contentType: "text/markdown" });
      expect((await store.get("again.txt"))?.contentType).toBe("text/markdown");
      expect(await text(store, "again.txt")).toBe("second");
    });

    it("stores keys with slashes independently of their neighbours", async () => {
      await store.put("media/ab/cd/file.png", bytesOf("png"), { contentType: "image/png" });
      await store.put("media/ab/cd/other.png", bytesOf("other"), { contentType: "image/png" });
      await store.put("media/ab/ef/file.png", bytesOf("elsewhere"), { contentType: "image/png" });
      expect(await text(store, "media/ab/cd/file.png")).toBe("png");
      await store.delete("media/ab/cd/file.png");
      expect(await store.get("media/ab/cd/file.png")).toBeNull();
      expect(await text(store, "media/ab/cd/other.png")).toBe("other");
      expect(await text(store, "media/ab/ef/file.png")).toBe("elsewhere");
      // Partial paths name no object.
      expect(await store.get("media/ab/cd")).toBeNull();
      expect(await store.get("media")).toBeNull();
    });

    it("accepts the whole safe charset", async () => {
      const key = "A-Z_a-z.0-9/x.y.z/file-name_1.tar.gz";
      await store.put(key, bytesOf("ok"), { contentType: "application/gzip" });
      expect(await text(store, key)).toBe("ok");
    });

    it.each(ESCAPING_KEYS.map((key) => [JSON.stringify(key), key] as const))(
      "refuses the key %s in put, get and delete",
      async (_label, key) => {
        await expect(store.put(key, bytesOf("evil"), { contentType: "text/plain" })).rejects.toThrow(/key/i);
        await expect(store.put(key, streamOf([bytesOf("evil")]), { contentType: "text/plain" })).rejects.toThrow(/key/i);
        await expect(store.get(key)).rejects.toThrow(/key/i);
        await expect(store.delete(key)).rejects.toThrow(/key/i);
        expect(() => store.publicUrl(key)).toThrow(/key/i);
      },
    );
  });
}
