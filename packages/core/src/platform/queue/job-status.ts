import type { JobStatus } from "../../ports/queue.js";
import type { StoredJobState } from "../../ports/storage-schema.js";

/** The API status of a stored job: a waiting job is `retries` after a failed attempt, `schedule` before its time, else `submitted`. */
export function jobStatusOf(state: StoredJobState, tries: number, runAt: string, now: Date): JobStatus {
  if (state !== "waiting") return state;
  if (tries > 0) return "retries";
  return runAt > now.toISOString() ? "schedule" : "submitted";
}

export function emptyJobCounts(): Record<JobStatus, number> {
  return { submitted: 0, schedule: 0, retries: 0, active: 0, finished: 0, failed: 0, dlq: 0 };
}
