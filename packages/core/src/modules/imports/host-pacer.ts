/**
 * Keeps a bounded rate of requests per remote host: `wait(host)` resolves
 * once `intervalMs` has passed since the last turn of the same host, so an
 * import of many accounts of one server does not flood it. Per process; the
 * hosts of other rows are not held up.
 */
export class HostPacer {
  readonly #next = new Map<string, number>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async wait(host: string | null): Promise<void> {
    if (host === null || this.intervalMs <= 0) return;
    const at = this.now();
    const next = this.#next.get(host) ?? at;
    this.#next.set(host, Math.max(at, next) + this.intervalMs);
    if (next > at) await this.sleep(next - at);
    // Forget hosts long past, so the map stays small.
    if (this.#next.size > 1000) for (const [key, time] of this.#next) if (time < at) this.#next.delete(key);
  }
}
