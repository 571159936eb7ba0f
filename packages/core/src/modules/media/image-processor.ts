import { encode as encodeBlurhash } from "blurhash";
import type { Metadata, Sharp } from "sharp";
import type { MediaMeta } from "../../mastodon/entities/media.js";

/** One stored rendition of a processed file. */
export interface Rendition {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly width?: number;
  readonly height?: number;
}

/** What processing made of an upload. */
export interface ProcessedMedia {
  /** Mastodon's media type. */
  readonly type: "image" | "gifv" | "video" | "audio" | "unknown";
  readonly file: Rendition;
  readonly small: Rendition | null;
  readonly meta: MediaMeta;
  readonly blurhash: string | null;
}

export interface ImageLimits {
  /** Pixels of an image the server agrees to decode; larger ones (decompression bombs included) are refused. */
  readonly maxInputPixels: number;
  /** Pixels of the stored image; larger ones are scaled down to this area. */
  readonly maxOutputPixels: number;
}

/** Largest side of a preview, as Mastodon's `small` rendition. */
const PREVIEW_SIDE = 640;

/** A processing failure caused by the file itself, reported to the user as the reason. */
export class MediaFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MediaFileError";
  }
}

function sizeMeta(width: number, height: number): { width: number; height: number; size: string; aspect: number } {
  return { width, height, size: `${width}x${height}`, aspect: height > 0 ? width / height : 1 };
}

/** sharp and its native library load with the first image, not with the server: most processes never decode one. */
async function loadSharp(): Promise<typeof import("sharp").default> {
  return (await import("sharp")).default;
}

/** Opens an image for decoding with the pixel limit on, failing on truncated or corrupt data rather than guessing. */
async function open(bytes: Uint8Array, limits: ImageLimits, animated = false): Promise<Sharp> {
  const sharp = await loadSharp();
  return sharp(bytes, { limitInputPixels: limits.maxInputPixels, failOn: "warning", animated });
}

/** A blurhash of an image: a few numbers clients paint while the image loads. */
export async function blurhashOf(bytes: Uint8Array): Promise<string> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(bytes).resize(32, 32, { fit: "inside" }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return encodeBlurhash(new Uint8ClampedArray(data), info.width, info.height, 4, 3);
}

/** A preview (webp, at most 640 pixels a side) of a still image. */
export async function previewOf(bytes: Uint8Array, limits: ImageLimits): Promise<Rendition> {
  const { data, info } = await (await open(bytes, limits))
    .rotate()
    .resize(PREVIEW_SIDE, PREVIEW_SIDE, { fit: "inside", withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { bytes: new Uint8Array(data), contentType: "image/webp", width: info.width, height: info.height };
}

function outputFormat(pipeline: Sharp, mime: string): { pipeline: Sharp; contentType: string } {
  switch (mime) {
    case "image/png":
      return { pipeline: pipeline.png(), contentType: "image/png" };
    case "image/webp":
      return { pipeline: pipeline.webp({ quality: 85 }), contentType: "image/webp" };
    case "image/gif":
      return { pipeline: pipeline.gif(), contentType: "image/gif" };
    default:
      // JPEG, and formats few clients show (AVIF) become JPEG.
      return { pipeline: pipeline.jpeg({ quality: 85, mozjpeg: true }), contentType: "image/jpeg" };
  }
}

/**
 * Decodes an image within the limits, applies its EXIF orientation, drops
 * every metadata block (EXIF with its GPS position, XMP, IPTC; sharp writes
 * none unless asked), scales it down to the output area, and makes the
 * preview and the blurhash.
 */
export async function processImage(
  bytes: Uint8Array,
  mime: string,
  limits: ImageLimits,
  focus: { x: number; y: number } | null,
): Promise<ProcessedMedia> {
  let metadata: Metadata;
  try {
    // Reading the header decodes no pixels, so it may look at any size; the limit guards the decoding below.
    const sharp = await loadSharp();
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new MediaFileError(`The image cannot be read: ${messageOf(error)}`, { cause: error });
  }
  const width = metadata.width ?? 0;
  const height = metadata.pageHeight ?? metadata.height ?? 0;
  if (width <= 0 || height <= 0) throw new MediaFileError("The image has no dimensions");
  if (width * height > limits.maxInputPixels) {
    throw new MediaFileError(`The image is ${width}x${height} pixels, more than the ${limits.maxInputPixels} this server accepts`);
  }
  const animated = mime === "image/gif" && (metadata.pages ?? 1) > 1;
  try {
    let pipeline = (await open(bytes, limits, animated)).rotate();
    if (width * height > limits.maxOutputPixels) {
      const scale = Math.sqrt(limits.maxOutputPixels / (width * height));
      pipeline = pipeline.resize(Math.floor(width * scale), Math.floor(height * scale), { fit: "inside" });
    }
    const format = outputFormat(pipeline, mime);
    const { data, info } = await format.pipeline.toBuffer({ resolveWithObject: true });
    const file: Rendition = {
      bytes: new Uint8Array(data),
      contentType: format.contentType,
      width: info.width,
      height: info.pageHeight ?? info.height,
    };
    const small = await previewOf(file.bytes, limits);
    const meta: MediaMeta = {
      original: sizeMeta(file.width ?? info.width, file.height ?? info.height),
      small: sizeMeta(small.width ?? 0, small.height ?? 0),
      ...(focus && { focus }),
    };
    return { type: "image", file, small, meta, blurhash: await blurhashOf(small.bytes) };
  } catch (error) {
    if (error instanceof MediaFileError) throw error;
    throw new MediaFileError(`The image cannot be decoded: ${messageOf(error)}`, { cause: error });
  }
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // One line, bounded: it is shown to users and kept in the log.
  return text.split("\n")[0]?.slice(0, 300) ?? "unknown error";
}
