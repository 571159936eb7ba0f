import { createHash } from "node:crypto";
import { assertValidBlobKey } from "../../blob/blob-keys.js";

/** The renditions of an attachment kept in the blob store. */
export type MediaRendition = "upload" | "file" | "small";

/**
 * A blob key for one rendition of an attachment. Made only from the server's
 * own id, the rendition and a hash of the content: nothing a client sends
 * (file names included) reaches a key. The hash makes a key name one content
 * for ever, so its URL may be cached as immutable.
 */
export function mediaBlobKey(mediaId: string, rendition: MediaRendition, bytes: Uint8Array, extension: string): string {
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
  const key = `media/${mediaId}/${rendition}-${digest}.${extension}`;
  assertValidBlobKey(key);
  return key;
}

/** The last segment of a key: the file name a URL shows. */
export function keyFileName(key: string): string {
  return key.slice(key.lastIndexOf("/") + 1);
}
