import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { BlobMetadata, BlobStore, StoredBlob } from "../ports/blob.js";
import { assertValidBlobKey } from "./blob-keys.js";

export interface LocalDirectoryBlobStoreOptions {
  /** Root directory; objects live at `<directory>/<key>` so a web server can serve the tree as is. */
  readonly directory: string;
  /** Base URL a web server serves `directory` under; without it Kith serves the objects itself. */
  readonly publicBaseUrl?: string;
}

/**
 * Bookkeeping lives under dot-names, which valid keys can never reach
 * (no key segment starts with a dot), so objects and bookkeeping cannot collide.
 */
const TEMP_DIR = ".kith-tmp";
const META_DIR = ".kith-meta";

interface Sidecar {
  readonly contentType: string;
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}

/**
 * Blobs as files in a local directory: the embedded default.
 *
 * Writes go to a temp file that is fsynced and renamed into place, so a reader
 * sees the old object or the new one, never a half-written file, and a failed
 * upload leaves the old object alone. The content type sits in a sidecar under
 * `.kith-meta/`, written before the object is renamed in, so a new object never
 * appears without its type. (During an overwrite with a different type a reader
 * can briefly pair the new type with the old bytes; keys are server-chosen and
 * in practice written once.) A key cannot also be a "directory" of other keys
 * here (`a` and `a/b`), which the filesystem forbids; such a put fails.
 */
export class LocalDirectoryBlobStore implements BlobStore {
  readonly #directory: string;
  readonly #publicBaseUrl: string | null;

  constructor(options: LocalDirectoryBlobStoreOptions) {
    this.#directory = options.directory;
    // Trailing slashes dropped so `${base}/${key}` never has a double slash.
    this.#publicBaseUrl = options.publicBaseUrl ? options.publicBaseUrl.replace(/\/+$/, "") : null;
  }

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array>, options: { contentType: string }): Promise<BlobMetadata> {
    const objectPath = this.#objectPath(key);
    const metaPath = this.#metaPath(key);
    const tempDir = join(this.#directory, TEMP_DIR);
    await mkdir(tempDir, { recursive: true });
    const tempName = randomBytes(12).toString("hex");
    const tempObject = join(tempDir, `${tempName}.object`);
    const tempMeta = join(tempDir, `${tempName}.meta`);
    try {
      const size = await writeDurably(tempObject, body);
      const sidecar: Sidecar = { contentType: options.contentType };
      await writeDurably(tempMeta, new TextEncoder().encode(JSON.stringify(sidecar)));
      await mkdir(dirname(objectPath), { recursive: true });
      await mkdir(dirname(metaPath), { recursive: true });
      await rename(tempMeta, metaPath);
      await rename(tempObject, objectPath);
      return { contentType: options.contentType, size };
    } finally {
      // Both are gone after a successful put; after a failure they are litter.
      await rm(tempObject, { force: true });
      await rm(tempMeta, { force: true });
    }
  }

  async get(key: string): Promise<StoredBlob | null> {
    const objectPath = this.#objectPath(key);
    let handle: FileHandle;
    try {
      handle = await open(objectPath, "r");
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    try {
      // Size and bytes come from the one open file, so a concurrent overwrite or
      // delete (a rename or unlink) cannot change what this read returns.
      const stats = await handle.stat();
      // A key that is only a prefix of other keys names a directory here, and no object.
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      const size = stats.size;
      const contentType = await this.#readContentType(key);
      const nodeStream = createReadStream("", { fd: handle, autoClose: true });
      return { contentType, size, body: Readable.toWeb(nodeStream) as unknown as ReadableStream<Uint8Array> };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const objectPath = this.#objectPath(key);
    // Object first: once it is gone the key reads as absent whatever happens to the sidecar.
    await rm(objectPath, { force: true });
    await rm(this.#metaPath(key), { force: true });
  }

  publicUrl(key: string): string | null {
    assertValidBlobKey(key);
    return this.#publicBaseUrl === null ? null : `${this.#publicBaseUrl}/${key}`;
  }

  #objectPath(key: string): string {
    // The validator is what keeps the joined path inside the directory.
    assertValidBlobKey(key);
    return join(this.#directory, ...key.split("/"));
  }

  #metaPath(key: string): string {
    assertValidBlobKey(key);
    return join(this.#directory, META_DIR, ...`${key}.json`.split("/"));
  }

  async #readContentType(key: string): Promise<string> {
    try {
      const sidecar = JSON.parse(await readFile(this.#metaPath(key), "utf8")) as Partial<Sidecar>;
      if (typeof sidecar.contentType === "string") return sidecar.contentType;
    } catch (error) {
      if (!isNotFound(error) && !(error instanceof SyntaxError)) throw error;
    }
    // A file placed by hand, or a damaged sidecar: serve it as opaque bytes rather than fail.
    return "application/octet-stream";
  }
}

/** Writes `body` to a new file at `path`, streaming rather than buffering, and fsyncs it; returns the byte count. */
async function writeDurably(path: string, body: Uint8Array | ReadableStream<Uint8Array>): Promise<number> {
  const handle = await open(path, "wx");
  try {
    let size: number;
    if (body instanceof Uint8Array) {
      await handle.writeFile(body);
      size = body.byteLength;
    } else {
      size = 0;
      const sink = new Writable({
        write(chunk: Uint8Array, _encoding, callback): void {
          size += chunk.byteLength;
          writeAll(handle, chunk).then(
            () => callback(),
            (error: unknown) => callback(error as Error),
          );
        },
      });
      // One chunk in flight at a time: the source is pulled only as fast as the disk takes it.
      await pipeline(Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>), sink);
    }
    // Durable before the rename makes it visible.
    await handle.sync();
    return size;
  } finally {
    await handle.close();
  }
}

/** A single write may take fewer bytes than offered; loop until the chunk is all on disk. */
async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}
