import type { BackoffOptions, JobRecord, JobStatus } from "@kith/core";
import { Job } from "bullmq";

/**
 * What Kith stores as a BullMQ job's `data`. Short keys: this is written
 * once per job and read back by every admin listing.
 */
export interface JobData {
  /** The payload as JSON text, kept as text so an unreadable one can still be shown. */
  readonly r: string;
  /** When the job was meant to run first (ms): its own delay, apart from any hold by its ordering key. 0 for scheduler runs. */
  readonly t: number;
  /** Per-job backoff options. */
  readonly b?: BackoffOptions;
  /** Ordering key. */
  readonly o?: string;
  /** Deduplication key. */
  readonly d?: string;
}

/**
 * A job held back by its ordering key waits in BullMQ's delayed set with
 * exactly this delay (a year and 7 ms, a value no caller picks) until the
 * job before it ends. BullMQ scores delayed jobs as `timestamp * 4096`,
 * which must stay below 2^53, so the hold cannot be much longer.
 */
export const HELD_DELAY_MS = 31_536_000_007;

/** BullMQ's delayed-set scores carry the run time in ms, shifted left by 12 bits. */
const DELAYED_SCORE_SHIFT = 0x1000;

/** Reads `data` of a job defensively: a job written by something else must not break listing. */
export function readJobData(value: unknown): Partial<JobData> {
  if (typeof value === "string") {
    try {
      return readJobData(JSON.parse(value));
    } catch {
      return {};
    }
  }
  if (typeof value !== "object" || value === null) return {};
  return value as Partial<JobData>;
}

function parsePayload(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

function isoOrNull(ms: string | undefined): string | null {
  const value = Number(ms);
  return ms && Number.isFinite(value) && value > 0 ? new Date(value).toISOString() : null;
}

/** A job as the Lua scripts describe it (see `describeJob` in scripts.ts). */
export function toJobRecord(row: readonly string[]): JobRecord {
  const [
    queue = "",
    id = "",
    status = "",
    dataText = "",
    optsText = "",
    timestamp,
    delay,
    attemptsMade,
    processedOn,
    finishedOn,
    failedReason,
    delayedScore,
  ] = row;
  const data = readJobData(dataText);
  const rawPayload = typeof data.r === "string" ? data.r : dataText;
  const opts = optsText ? Job.optsFromJSON(optsText) : {};
  const createdAtMs = Number(timestamp) || 0;
  const held = delay === String(HELD_DELAY_MS);
  let runAtMs: number;
  if (delayedScore && !held) runAtMs = Math.floor(Number(delayedScore) / DELAYED_SCORE_SHIFT);
  else if (typeof data.t === "number" && data.t > 0) runAtMs = data.t;
  else runAtMs = createdAtMs + (Number(delay) || 0);
  const ended = status === "finished" || status === "failed" || status === "dlq";
  return {
    id,
    queue,
    status: status as JobStatus,
    payload: parsePayload(rawPayload),
    rawPayload,
    tries: Number(attemptsMade) || 0,
    maxAttempts: opts.attempts ?? 1,
    runAt: new Date(runAtMs).toISOString(),
    createdAt: new Date(createdAtMs).toISOString(),
    startedAt: isoOrNull(processedOn),
    finishedAt: ended ? isoOrNull(finishedOn) : null,
    lastError: failedReason ? failedReason : null,
    deduplicationKey: typeof data.d === "string" ? data.d : null,
    orderingKey: typeof data.o === "string" ? data.o : null,
  };
}
