import { getLogger } from "../../logging.js";

export interface RepeatingTaskOptions {
  /**
   * Each run whose task reports it found nothing (resolves `false`) doubles
   * the wait before the next, up to this; any other run, a `trigger()` or a
   * `hurry()` brings it back to `intervalMs`. @default intervalMs (no backing off)
   */
  readonly idleMaxIntervalMs?: number;
}

/**
 * Runs an async task every `intervalMs`, never two runs at once. `trigger()`
 * runs it now (or right after the current run, when one is under way), which
 * is how a worker reacts at once to a finished job or a local enqueue instead
 * of waiting for its next poll. The wait is measured from the end of a run, so
 * a slow database slows polling down rather than piling runs up. A task that
 * finds nothing to do may be run less often while that lasts
 * (`idleMaxIntervalMs`): an idle server then polls a few times a second in
 * all instead of dozens.
 *
 * Timers are not unref'd: while a queue is started it keeps the process
 * alive (a worker-only process has nothing else to), and `stop()` lets it go.
 */
export class RepeatingTask {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #active = false;
  /** The wait after the current run when it finds nothing (see RepeatingTaskOptions). */
  #idleDelayMs: number;
  readonly #idleMaxMs: number;

  constructor(
    private readonly intervalMs: number,
    /** Resolving `false` says it found nothing to do (see RepeatingTaskOptions); anything else counts as work done. */
    private readonly task: () => Promise<unknown>,
    options: RepeatingTaskOptions = {},
  ) {
    this.#idleDelayMs = intervalMs;
    this.#idleMaxMs = Math.max(intervalMs, options.idleMaxIntervalMs ?? intervalMs);
  }

  get active(): boolean {
    return this.#active;
  }

  /** Starts the repetition: a first run now, or after one interval. */
  start(options: { readonly runNow?: boolean } = {}): void {
    if (this.#active) return;
    this.#active = true;
    if (options.runNow ?? true) this.#fire();
    else this.#schedule(this.intervalMs);
  }

  /** Runs the task as soon as possible; several triggers during one run make one more run. */
  trigger(): void {
    this.#idleDelayMs = this.intervalMs;
    this.#fire();
  }

  #fire(): void {
    if (!this.#active) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#run();
  }

  /**
   * Something may soon be there to find (work written in a transaction not
   * yet committed): the next run comes within `intervalMs` again, however
   * long the idle wait had grown.
   */
  hurry(): void {
    this.#idleDelayMs = this.intervalMs;
    if (!this.#active || this.#running || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#schedule(this.intervalMs);
  }

  /** Stops repeating and waits for a run under way. */
  async stop(): Promise<void> {
    this.#active = false;
    this.#again = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async #run(): Promise<void> {
    let delay = this.intervalMs;
    try {
      if ((await this.task()) === false) {
        delay = this.#idleDelayMs;
        this.#idleDelayMs = Math.min(this.#idleDelayMs * 2, this.#idleMaxMs);
      } else {
        this.#idleDelayMs = this.intervalMs;
      }
    } catch (error) {
      // Tasks report their own failures; this is the last resort, so the repetition never dies.
      getLogger(["queue"]).error("A queue background task failed: {error}", { error });
      this.#idleDelayMs = this.intervalMs;
    }
    this.#running = undefined;
    if (!this.#active) return;
    if (this.#again) delay = 0;
    this.#again = false;
    this.#schedule(delay);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#fire();
    }, delayMs);
  }
}
