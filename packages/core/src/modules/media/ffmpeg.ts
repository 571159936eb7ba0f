import { spawn } from "node:child_process";

/** Output of a finished tool run. */
export interface ToolResult {
  readonly stdout: string;
  readonly stderr: string;
}

export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Bytes of output kept from a tool; the rest is dropped so a chatty or hostile file cannot fill memory. */
const MAX_OUTPUT = 1_000_000;

/**
 * Runs a program with an argument array (never through a shell, so no file
 * name or value is ever parsed as a command), killed after `timeoutMs`.
 */
export function runTool(command: string, args: readonly string[], timeoutMs: number): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { shell: false, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => reject(new ToolError(`${command} could not start: ${error.message}`)));
    child.on("close", (code, signal) => {
      if (signal) reject(new ToolError(`${command} was stopped (${signal}); it ran longer than ${timeoutMs} ms or was killed`));
      else if (code !== 0) reject(new ToolError(`${command} failed: ${lastLine(stderr) || `exit code ${code}`}`));
      else resolve({ stdout, stderr });
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").slice(0, 300);
}

/** Where ffmpeg and ffprobe are; plain names are looked up on PATH. */
export interface FfmpegPaths {
  readonly ffmpeg: string;
  readonly ffprobe: string;
}

export const DEFAULT_FFMPEG_PATHS: FfmpegPaths = { ffmpeg: "ffmpeg", ffprobe: "ffprobe" };

const availability = new Map<string, Promise<boolean>>();

/** Whether both tools run here; asked once per process and paths, as installing ffmpeg needs a restart anyway. */
export function ffmpegAvailable(paths: FfmpegPaths = DEFAULT_FFMPEG_PATHS): Promise<boolean> {
  const key = `${paths.ffmpeg}\u0000${paths.ffprobe}`;
  let known = availability.get(key);
  if (!known) {
    known = Promise.all([runTool(paths.ffmpeg, ["-version"], 10_000), runTool(paths.ffprobe, ["-version"], 10_000)]).then(
      () => true,
      () => false,
    );
    availability.set(key, known);
  }
  return known;
}
