import type { Logger } from "../../logging.js";

/** How often a failure that goes on is logged again. */
const REPEAT_MS = 30_000;

/**
 * Logs the failures of a repeated database task (polling, heartbeats) without
 * flooding the log while the database is down: the first failure, then one
 * line every 30 s while it lasts, then a line when it works again.
 */
export class FailureReporter {
  #failingSince: number | undefined;
  #lastLoggedAt = 0;
  #failures = 0;

  constructor(
    private readonly logger: Logger,
    /** What failed, for the message: "polling queue mail", "the heartbeat". */
    private readonly what: string,
    private readonly now: () => number = Date.now,
  ) {}

  failed(error: unknown): void {
    const at = this.now();
    this.#failures += 1;
    if (this.#failingSince === undefined) this.#failingSince = at;
    if (this.#failures === 1 || at - this.#lastLoggedAt >= REPEAT_MS) {
      this.#lastLoggedAt = at;
      this.logger.warn("{what} failed ({failures} time(s) in a row); will keep trying: {error}", {
        what: this.what,
        failures: this.#failures,
        error,
      });
    }
  }

  succeeded(): void {
    if (this.#failingSince === undefined) return;
    this.logger.info("{what} works again after {failures} failure(s)", { what: this.what, failures: this.#failures });
    this.#failingSince = undefined;
    this.#failures = 0;
  }
}
