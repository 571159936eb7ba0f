/**
 * Work started and not finished yet, counted, with a wait for all of it to
 * finish (a shutdown's, or a test's).
 *
 * A count, not a Set of the work's promises. A Set (or Map) that gains and
 * loses an entry for every request, event or job is rehashed every few of
 * them, and V8 leaves each table it replaces pointing to the next, with the
 * entries it had. Once one table has reached the old generation, every young
 * collection takes the chain of tables after it, and what they name, for live
 * until the next full collection: in a micro-benchmark, tens of MB promoted a
 * young collection (bench/HISTORY.md). A WeakMap does not do this.
 */
export class PendingWork {
  #size = 0;
  #waiting: (() => void)[] = [];

  /** Work started and not settled yet. */
  get size(): number {
    return this.#size;
  }

  /** Counts `work` until it settles. Its outcome stays the caller's: a rejection is not reported here. */
  track(work: Promise<unknown>): void {
    this.#size++;
    const done = (): void => this.#finished();
    work.then(done, done);
  }

  /** Resolves once nothing is left, counting work tracked while waiting (at once if nothing is pending). */
  settled(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
    });
  }

  #finished(): void {
    this.#size--;
    if (this.#size > 0 || this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
