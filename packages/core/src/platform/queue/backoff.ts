import type { BackoffOptions } from "../../ports/queue.js";

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 1_000, maxMs: 3_600_000 };

/**
 * Delay before the next attempt after `attempt` failed ones: exponential,
 * with "equal jitter" (half fixed, half random) so retries of many jobs that
 * failed together spread out but never come sooner than half the step.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const max = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
