import { KithError, isKithError } from "../../domain/errors.js";
import type { Storage } from "../../ports/storage.js";

/**
 * How long a job that could not run yet waits before it is taken up again. Short: what it waits for (a part of this
 * process still loading, the database coming back) is a matter of seconds, and the wait costs the job no attempt.
 */
export const NOT_READY_DELAY_MS = 2_000;

/** The error a job handler throws when this process cannot run the job yet; the attempt does not count. */
export function jobNotReady(reason: string, cause?: unknown): KithError {
  return new KithError("job.not_ready", { message: reason, cause });
}

/**
 * Whether a handler's failure is not the job's fault: the process said it is not ready (`jobNotReady`), or the
 * storage says the database could not answer. Such an attempt is given back instead of counted.
 */
export function cannotRunYet(error: unknown, storage?: Pick<Storage, "isUnavailable">): boolean {
  if (isKithError(error) && error.code === "job.not_ready") return true;
  return storage?.isUnavailable?.(error) ?? false;
}
