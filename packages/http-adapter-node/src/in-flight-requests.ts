/**
 * The number of requests being handled, and a wait for none to be left.
 *
 * A count, not a Set of the requests' promises. V8 keeps a Set's (or Map's)
 * table until it is rehashed, then leaves the old table pointing to the new
 * one, with the entries it had. A Set that gains and loses an entry with each
 * request is rehashed every few requests; once one of its tables has reached
 * the old generation, every young collection takes the chain of tables after
 * it, and every request they name, for live until the next full collection
 * (bench/HISTORY.md; core's PendingWork does the same for jobs and events,
 * but this adapter does not depend on core).
 */
export interface InFlightRequests {
  /** Requests begun and not yet ended. */
  readonly size: number;
  begin(): void;
  end(): void;
  /** Resolves when no request is left (at once if none is being handled). */
  drained(): Promise<void>;
}

export function createInFlightRequests(): InFlightRequests {
  let size = 0;
  let waiting: (() => void)[] = [];
  return {
    get size() {
      return size;
    },
    begin() {
      size++;
    },
    end() {
      size--;
      if (size > 0 || waiting.length === 0) return;
      const drained = waiting;
      waiting = [];
      for (const resolve of drained) resolve();
    },
    drained() {
      if (size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
      });
    },
  };
}
