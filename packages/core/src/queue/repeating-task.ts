import { getLogger } from "../logging.js";

/**
 * Runs an async task every `intervalMs`, never two runs at once. `trigger()`
 * runs it now (or right after the current run, when one is under way), which
 * is how a worker reacts at once to a finished job or a local enqueue instead
 * of waiting for its next poll. The wait is measured from the end of a run, so
 * a slow database slows polling down rather than piling runs up.
 *
 * Timers are not unref'd: while a queue is started it keeps the process
 * alive (a worker-only process has nothing else to), and `stop()` lets it go.
 */
export class RepeatingTask {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #active = false;

  constructor(
    private readonly intervalMs: number,
    private readonly task: () => Promise<void>,
  ) {}

  get active(): boolean {
    return this.#active;
  }

  /** Starts the repetition: a first run now, or after one interval. */
  start(options: { readonly runNow?: boolean } = {}): void {
    if (this.#active) return;
    this.#active = true;
    if (options.runNow ?? true) this.trigger();
    else this.#schedule(this.intervalMs);
  }

  /** Runs the task as soon as possible; several triggers during one run make one more run. */
  trigger(): void {
    if (!this.#active) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = this.#run();
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
    try {
      await this.task();
    } catch (error) {
      // Tasks report their own failures; this is the last resort, so the repetition never dies.
      getLogger(["queue"]).error("A queue background task failed: {error}", { error });
    }
    this.#running = undefined;
    if (!this.#active) return;
    const delay = this.#again ? 0 : this.intervalMs;
    this.#again = false;
    this.#schedule(delay);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.trigger();
    }, delayMs);
  }
}
