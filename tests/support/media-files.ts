import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Real media files made at test time: images with sharp (the same library
 * the server uses, loaded from the core package), audio and video with
 * ffmpeg, in a temporary directory removed by `cleanup()`.
 */

interface SharpPipeline {
  png(): SharpPipeline;
  jpeg(options?: { quality?: number }): SharpPipeline;
  webp(): SharpPipeline;
  gif(): SharpPipeline;
  withMetadata(options: { orientation?: number }): SharpPipeline;
  withExif(exif: Record<string, Record<string, string>>): SharpPipeline;
  toBuffer(): Promise<Buffer>;
  metadata(): Promise<{ width?: number; height?: number; format?: string; exif?: Buffer; orientation?: number }>;
}
type SharpFactory = (
  input?: Uint8Array | Uint8Array[] | { create: { width: number; height: number; channels: 3 | 4; background: string } },
  options?: { limitInputPixels?: number | false; join?: { animated?: boolean } },
) => SharpPipeline;

const sharp = createRequire(new URL("../../packages/core/package.json", import.meta.url))("sharp") as SharpFactory;

function canvas(width: number, height: number, background = "#3366cc"): SharpPipeline {
  return sharp({ create: { width, height, channels: 3, background } });
}

export async function makePng(width = 64, height = 48): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await canvas(width, height).png().toBuffer());
}

/** An animated GIF: frames of the given colours, one after the other. */
export async function makeAnimatedGif(size = 16, colours: readonly string[] = ["#ff0000", "#00ff00"]): Promise<Uint8Array<ArrayBuffer>> {
  const frames = await Promise.all(colours.map(async (colour) => new Uint8Array(await canvas(size, size, colour).png().toBuffer())));
  return new Uint8Array(await sharp(frames, { join: { animated: true } }).gif().toBuffer());
}

export async function makeWebp(width = 64, height = 48): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await canvas(width, height, "#cc6633").webp().toBuffer());
}

/** A JPEG carrying EXIF: orientation 6 (rotate 90°) and an Artist field that processing must remove. */
export async function makeJpegWithExif(width = 80, height = 40, artist = "KITH-SECRET-ARTIST"): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(
    await canvas(width, height, "#22aa44")
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Artist: artist } })
      .toBuffer(),
  );
}

/**
 * A PNG whose header claims far more pixels than any server should decode:
 * the rows are one repeated colour, so the file stays small (a decompression bomb).
 */
export async function makePixelBomb(width = 12_000, height = 12_000): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await canvas(width, height, "#000000").png().toBuffer());
}

/** Metadata of an image as sharp reads it (dimensions, format, EXIF presence). */
export async function imageInfo(
  bytes: Uint8Array,
): Promise<{ width?: number; height?: number; format?: string; exif?: Buffer; orientation?: number }> {
  return sharp(bytes, { limitInputPixels: false }).metadata();
}

export const ffmpegInstalled: boolean = spawnSync("ffmpeg", ["-version"], { stdio: "ignore" }).status === 0;

export interface MediaFileDir {
  /** A short MP4 (H.264 + AAC) with a test pattern and a tone. */
  video(seconds?: number): Uint8Array;
  /** A short WAV tone. */
  audio(seconds?: number): Uint8Array;
  /** A short MP3 tone. */
  mp3(seconds?: number): Uint8Array;
  cleanup(): void;
}

export function mediaFileDir(): MediaFileDir {
  const dir = mkdtempSync(join(tmpdir(), "kith-media-test-"));
  let counter = 0;
  const make = (extension: string, args: readonly string[]): Uint8Array => {
    const output = join(dir, `file-${counter++}.${extension}`);
    const result = spawnSync("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args, output], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`ffmpeg failed: ${result.stderr}`);
    return new Uint8Array(readFileSync(output));
  };
  return {
    video: (seconds = 1) =>
      make("mp4", [
        "-f",
        "lavfi",
        "-i",
        `testsrc=size=320x240:rate=25:duration=${seconds}`,
        "-f",
        "lavfi",
        "-i",
        `sine=frequency=440:duration=${seconds}`,
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-shortest",
      ]),
    audio: (seconds = 1) => make("wav", ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`]),
    mp3: (seconds = 1) => make("mp3", ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, "-c:a", "libmp3lame"]),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
