import { createHash } from "node:crypto";
import { assertValidBlobKey } from "../../blob/blob-keys.js";
import { KithError } from "../../domain/errors.js";
import type { BlobStore } from "../../ports/blob.js";
import { customEmojiErrors } from "./custom-emoji-errors.js";
import type { EmojiImageColumns } from "./custom-emojis-store.js";

/** The largest image a custom emoji may have, Mastodon's default. */
export const EMOJI_MAX_BYTES = 256 * 1024;

/** The most pixels an emoji's image may have: emojis are shown at text size, and larger images cost every reader. */
const EMOJI_MAX_PIXELS = 1024 * 1024;

type EmojiImageType = "image/png" | "image/gif" | "image/webp";

const EXTENSIONS: Record<EmojiImageType, string> = { "image/png": "png", "image/gif": "gif", "image/webp": "webp" };

/** The image type the bytes begin with, whatever a file name or a client says; null for any other. */
export function emojiImageTypeOf(bytes: Uint8Array): EmojiImageType | null {
  const starts = (...values: number[]) => values.every((value, index) => bytes[index] === value);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "image/gif";
  const riff = starts(0x52, 0x49, 0x46, 0x46);
  const webp = bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50;
  return riff && webp ? "image/webp" : null;
}

function keyOf(emojiId: string, name: string, bytes: Uint8Array, extension: string): string {
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
  const key = `emojis/${emojiId}/${name}-${digest}.${extension}`;
  assertValidBlobKey(key);
  return key;
}

/**
 * Checks an emoji's image (its type by its bytes, its size, that it decodes
 * within the pixel bound) and stores it as it is, with a still PNG of its
 * first frame when it is animated, which clients show when motion is off.
 * The keys hold a hash of the content, so a new image has new URLs.
 */
export async function storeEmojiImage(blob: BlobStore, emojiId: string, bytes: Uint8Array): Promise<EmojiImageColumns> {
  if (bytes.byteLength > EMOJI_MAX_BYTES) {
    throw new KithError(customEmojiErrors["custom_emoji.image_too_large"], {
      message: `A custom emoji's image is at most ${EMOJI_MAX_BYTES} bytes`,
    });
  }
  const type = emojiImageTypeOf(bytes);
  if (type === null) throw new KithError(customEmojiErrors["custom_emoji.unsupported_image"]);
  const sharp = (await import("sharp")).default;
  let pages: number;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    const width = metadata.width ?? 0;
    const height = metadata.pageHeight ?? metadata.height ?? 0;
    if (width <= 0 || height <= 0 || width * height > EMOJI_MAX_PIXELS) throw new Error(`${width}x${height} pixels`);
    pages = metadata.pages ?? 1;
    // Decoding the first frame shows a truncated or corrupt file, which the header alone does not.
    await sharp(bytes, { limitInputPixels: EMOJI_MAX_PIXELS, failOn: "warning" }).raw().toBuffer();
  } catch (error) {
    throw new KithError(customEmojiErrors["custom_emoji.unsupported_image"], {
      message: `The image cannot be used as a custom emoji (${error instanceof Error ? error.message : String(error)})`,
    });
  }
  const imageKey = keyOf(emojiId, "image", bytes, EXTENSIONS[type]);
  await blob.put(imageKey, bytes, { contentType: type });
  let staticKey: string | null = null;
  if (pages > 1) {
    const still = new Uint8Array(await sharp(bytes, { limitInputPixels: EMOJI_MAX_PIXELS }).png().toBuffer());
    staticKey = keyOf(emojiId, "static", still, "png");
    await blob.put(staticKey, still, { contentType: "image/png" });
  }
  return { imageKey, staticKey, contentType: type, size: bytes.byteLength };
}

/** Removes an emoji's files; absent ones are no error. */
export async function deleteEmojiImage(blob: BlobStore, columns: { image_key: string | null; static_key: string | null }): Promise<void> {
  for (const key of [columns.image_key, columns.static_key]) if (key) await blob.delete(key);
}
