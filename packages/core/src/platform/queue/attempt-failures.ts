import { BoundedMap } from "../../bounded-map.js";
import type { Logger } from "../../logging.js";

/** How often a failure that goes on is logged again, with how many times it happened meanwhile. */
const REPEAT_MS = 5 * 60_000;
/** Kinds of failure remembered at once; the one seen longest ago goes first. */
const KINDS_MAX = 1_000;

/** One failed attempt, as the queue's worker saw it. */
export interface FailedAttempt {
  readonly id: string;
  readonly queue: string;
  readonly attempt: number;
  /** The error's message, without its stack. */
  readonly error: string;
  /** In how long it runs again, or null when the queue decides later. */
  readonly delayMs: number | null;
}

interface Kind {
  /** Failures of this kind since it was last logged. */
  unlogged: number;
  loggedAt: number;
}

/**
 * Logs the failed attempts of jobs so that a queue failing the same way again and again shows as one warning with
 * its count, not a line per attempt: the first failure of a kind (a queue and an error message) is logged at warning
 * level, the same failure again only once every five minutes with how many times it happened since. Every attempt is
 * also logged at debug level. Messages only: a stack trace per attempt says nothing the first did not.
 */
export class AttemptFailures {
  readonly #kinds = new BoundedMap<string, Kind>(KINDS_MAX);

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  failed(attempt: FailedAttempt): void {
    const next = attempt.delayMs === null ? "it runs again later" : `it runs again in ${attempt.delayMs} ms`;
    const fields = { id: attempt.id, queue: attempt.queue, attempt: attempt.attempt, next, error: attempt.error };
    this.logger.debug("Job {id} of queue {queue} failed attempt {attempt}; {next}: {error}", fields);
    const key = `${attempt.queue}\u0000${attempt.error}`;
    const at = this.now();
    const kind = this.#kinds.use(key);
    if (kind === undefined) {
      this.#kinds.set(key, { unlogged: 0, loggedAt: at });
      this.logger.warn("Job {id} of queue {queue} failed attempt {attempt}; {next}: {error}", fields);
      return;
    }
    kind.unlogged += 1;
    if (at - kind.loggedAt < REPEAT_MS) return;
    this.logger.warn("Jobs of queue {queue} failed {count} more times the same way in the last {minutes} minutes: {error}", {
      queue: attempt.queue,
      count: kind.unlogged,
      minutes: Math.round((at - kind.loggedAt) / 60_000),
      error: attempt.error,
    });
    kind.unlogged = 0;
    kind.loggedAt = at;
  }
}
