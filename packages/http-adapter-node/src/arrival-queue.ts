/** Runs a callback on a later turn of the event loop, after its I/O phase (setImmediate). */
export type ScheduleTurn = (callback: () => void) => void;

/**
 * Admits requests to their handlers one per turn of the event loop, in the
 * order they arrived.
 *
 * Node reads every socket that is ready at one poll of the event loop and
 * starts each request's handler as it reads it. A handler that works without
 * waiting (SQLite answers synchronously) runs to its end before the next one
 * starts, so a request that arrives while that batch is being served waits
 * for the whole batch and then for the one after it: the client served last
 * in a batch sends its next request just after the poll, so the same
 * connection waits two rounds every other round. Under a steady load that
 * doubles the latency of one request in ten (p99 2.1-2.7 times p50 at 10
 * connections, even for a server that does nothing but spend a fixed time on
 * each request; bench/latency-floor.mjs). Taking one request per turn, with a
 * poll between two, serves them first come, first served: the same work in
 * the same time, a narrower spread of latencies.
 *
 * Only the start is ordered: a handler that waits (PostgreSQL, a fetch) lets
 * the next one start, as before. And only reads are ordered (see
 * startsInArrivalOrder): writes start as Node reads them.
 */
export interface ArrivalQueue {
  /** Resolves on the turn at which the request that calls it may start; calls resolve in the order they were made. */
  admit(): Promise<void>;
}

export function createArrivalQueue(schedule: ScheduleTurn = setImmediate): ArrivalQueue {
  const waiting: (() => void)[] = [];
  let head = 0;
  let scheduled = false;

  function turn(): void {
    scheduled = false;
    const next = waiting[head];
    if (next === undefined) return;
    head++;
    if (head === waiting.length) {
      waiting.length = 0;
      head = 0;
    } else {
      // Dropped in slices rather than shifted one by one: a burst of thousands stays linear.
      if (head >= 1024) {
        waiting.splice(0, head);
        head = 0;
      }
      scheduleTurn();
    }
    next();
  }

  function scheduleTurn(): void {
    if (scheduled) return;
    scheduled = true;
    schedule(turn);
  }

  return {
    admit() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        scheduleTurn();
      });
    },
  };
}

/** The methods that only read. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a request waits for its turn in the arrival queue: reads do. A
 * write starts as soon as Node reads it, because the writes that start at one
 * poll share one commit (Kith's BatchedWrites gathers the writes of a turn),
 * and a commit costs more than the rows it writes: admitted one a turn, each
 * would commit alone (on SQLite, statuses with a fan-out to 10 followers went
 * from 545-634 to 347-405 a second, incoming activities from 684-742 to
 * 578-708).
 */
export function startsInArrivalOrder(method: string | undefined): boolean {
  return READS.has(method ?? "GET");
}
