import { performance } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Loading and compiling the modules and building the route table's schemas at start keep most of what they allocate,
 * and V8 doubles its young generation each time the survivors outgrow it: a server starts with a 16 MB young generation
 * (about 15 MB of resident memory) it does not need while it idles, and V8 does not give it back by itself, even after
 * minutes of idling. One memory-reducing collection once the server listens returns it; the young generation grows
 * again under load, where it pays for itself.
 *
 * Node has no call for that collection, only the `gc` function of `--expose-gc`, which V8 gives to contexts created
 * while the flag is set: a context is made for it and the flag turned off again at once.
 */
export function settleMemory(): void {
  setFlagsFromString("--expose-gc");
  let gc: unknown;
  try {
    gc = runInNewContext("gc");
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  // "last-resort" is V8's collection of everything collectable that also shrinks the young generation and releases
  // its pages; a regular full collection leaves both as they are.
  if (typeof gc === "function") gc({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** The young generation's size in bytes, as V8 reports it (what `settleMemory` shrinks). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

/** Below this share of busy time in an interval the process counts as idle. */
const IDLE_UTILIZATION = 0.2;

/**
 * Settles memory once the server idles after its start: every `intervalMs` after listening it looks at how busy the
 * event loop was since the last look, and settles at the first quiet interval, so the collection (about 75 ms of
 * CPU, measured) does not hold up requests that arrive right after a restart. A server busy through `attempts`
 * intervals keeps its young generation, which its load uses anyway. The timers do not keep the process alive.
 */
export function settleMemoryAfterStart(intervalMs = 200, attempts = 10): void {
  let last = performance.eventLoopUtilization();
  let left = attempts;
  const look = (): void => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy < IDLE_UTILIZATION) settleMemory();
    else if (--left > 0) setTimeout(look, intervalMs).unref();
  };
  setTimeout(look, intervalMs).unref();
}
