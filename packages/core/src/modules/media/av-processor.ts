import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MediaMeta } from "../../mastodon/entities/media.js";
import { type FfmpegPaths, ToolError, runTool } from "./ffmpeg.js";
import { type ImageLimits, MediaFileError, type ProcessedMedia, blurhashOf, messageOf, previewOf } from "./image-processor.js";

export interface AvLimits extends ImageLimits {
  /** Pixels of a video frame. */
  readonly maxVideoPixels: number;
  readonly maxFrameRate: number;
  /** Longest a probe may run. @default 30 s */
  readonly probeTimeoutMs?: number;
  /** Longest a transcode may run. @default 10 min */
  readonly transcodeTimeoutMs?: number;
}

interface ProbeStream {
  readonly codec_type?: string;
  readonly codec_name?: string;
  readonly width?: number;
  readonly height?: number;
  readonly avg_frame_rate?: string;
  readonly r_frame_rate?: string;
  readonly sample_rate?: string;
  readonly channels?: number;
  readonly bit_rate?: string;
}

interface ProbeResult {
  readonly streams?: readonly ProbeStream[];
  readonly format?: { readonly duration?: string; readonly bit_rate?: string };
}

function frameRate(text: string | undefined): number {
  if (!text) return 0;
  const [num, den] = text.split("/").map(Number);
  if (!num || !den) return Number(num) || 0;
  return num / den;
}

function formatLength(seconds: number): string {
  const whole = Math.floor(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  const fraction = (seconds - whole).toFixed(2).slice(1);
  return `${Math.floor(whole / 3600)}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}${fraction}`;
}

/**
 * Inputs may open local files only: a file that ffmpeg reads as a playlist
 * or a concat list must not make it fetch a URL or read another file.
 */
const LOCAL_FILES_ONLY = ["-protocol_whitelist", "file"];

async function probe(paths: FfmpegPaths, input: string, timeoutMs: number): Promise<ProbeResult> {
  try {
    const { stdout } = await runTool(
      paths.ffprobe,
      ["-v", "error", ...LOCAL_FILES_ONLY, "-print_format", "json", "-show_format", "-show_streams", input],
      timeoutMs,
    );
    return JSON.parse(stdout) as ProbeResult;
  } catch (error) {
    throw new MediaFileError(`The file cannot be read as audio or video: ${messageOf(error)}`, { cause: error });
  }
}

async function transcode(paths: FfmpegPaths, args: readonly string[], timeoutMs: number): Promise<void> {
  try {
    // -nostdin: never wait on a terminal; -map_metadata -1: drop tags (titles, locations, devices).
    // Every call's arguments start with its input, so the whitelist applies to it.
    await runTool(paths.ffmpeg, ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...LOCAL_FILES_ONLY, ...args], timeoutMs);
  } catch (error) {
    if (error instanceof ToolError) throw new MediaFileError(`Transcoding failed: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * Probes and transcodes a video or an audio file in a private temporary
 * directory, with names chosen here. Video becomes H.264/AAC MP4 with a
 * preview frame; audio becomes MP3. Metadata is dropped from both.
 */
export async function processAudioVideo(
  bytes: Uint8Array,
  kind: "VIDEO" | "AUDIO",
  paths: FfmpegPaths,
  limits: AvLimits,
): Promise<ProcessedMedia> {
  const dir = await mkdtemp(join(tmpdir(), "kith-media-"));
  try {
    const input = join(dir, "input");
    await writeFile(input, bytes);
    const probeTimeout = limits.probeTimeoutMs ?? 30_000;
    const transcodeTimeout = limits.transcodeTimeoutMs ?? 600_000;
    const info = await probe(paths, input, probeTimeout);
    const streams = info.streams ?? [];
    const video = streams.find((stream) => stream.codec_type === "video");
    const audio = streams.find((stream) => stream.codec_type === "audio");
    const duration = Number(info.format?.duration ?? 0) || 0;
    if (kind === "AUDIO") {
      if (!audio) throw new MediaFileError("The file has no audio stream");
      const output = join(dir, "output.mp3");
      await transcode(paths, ["-i", input, "-map_metadata", "-1", "-vn", "-c:a", "libmp3lame", "-q:a", "2", output], transcodeTimeout);
      const file = new Uint8Array(await readFile(output));
      const meta: MediaMeta = {
        length: formatLength(duration),
        duration,
        audio_encode: audio.codec_name ?? "unknown",
        audio_bitrate: audio.bit_rate ? `${Math.round(Number(audio.bit_rate) / 1000)} kb/s` : "unknown",
        audio_channels: audio.channels === 1 ? "mono" : audio.channels === 2 ? "stereo" : String(audio.channels ?? "unknown"),
        original: { duration, bitrate: Number(info.format?.bit_rate ?? 0) || 0 },
      };
      return { type: "audio", file: { bytes: file, contentType: "audio/mpeg" }, small: null, meta, blurhash: null };
    }
    if (!video) throw new MediaFileError("The file has no video stream");
    const width = video.width ?? 0;
    const height = video.height ?? 0;
    if (width * height > limits.maxVideoPixels) {
      throw new MediaFileError(`The video is ${width}x${height} pixels, more than the ${limits.maxVideoPixels} this server accepts`);
    }
    const fps = frameRate(video.avg_frame_rate) || frameRate(video.r_frame_rate);
    if (fps > limits.maxFrameRate)
      throw new MediaFileError(`The video has ${fps.toFixed(1)} frames a second, more than ${limits.maxFrameRate}`);
    const output = join(dir, "output.mp4");
    const audioArgs = audio ? ["-c:a", "aac", "-b:a", "128k"] : ["-an"];
    await transcode(
      paths,
      [
        "-i",
        input,
        "-map_metadata",
        "-1",
        "-map",
        "0:v:0",
        ...(audio ? ["-map", "0:a:0"] : []),
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "23",
        "-pix_fmt",
        "yuv420p",
        // H.264 in yuv420p needs even dimensions.
        "-vf",
        "scale=trunc(iw/2)*2:trunc(ih/2)*2",
        ...audioArgs,
        "-movflags",
        "+faststart",
        output,
      ],
      transcodeTimeout,
    );
    const frame = join(dir, "frame.png");
    await transcode(paths, ["-i", output, "-frames:v", "1", "-f", "image2", frame], probeTimeout);
    const small = await previewOf(new Uint8Array(await readFile(frame)), limits);
    const file = new Uint8Array(await readFile(output));
    const evenWidth = width - (width % 2);
    const evenHeight = height - (height % 2);
    const meta: MediaMeta = {
      length: formatLength(duration),
      duration,
      fps: Math.round(fps),
      original: {
        width: evenWidth,
        height: evenHeight,
        size: `${evenWidth}x${evenHeight}`,
        aspect: evenHeight ? evenWidth / evenHeight : 1,
        frame_rate: video.avg_frame_rate ?? `${Math.round(fps)}/1`,
        duration,
        bitrate: Number(info.format?.bit_rate ?? 0) || 0,
      },
      small: {
        width: small.width ?? 0,
        height: small.height ?? 0,
        size: `${small.width}x${small.height}`,
        aspect: small.height ? (small.width ?? 0) / small.height : 1,
      },
    };
    return { type: "video", file: { bytes: file, contentType: "video/mp4" }, small, meta, blurhash: await blurhashOf(small.bytes) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
