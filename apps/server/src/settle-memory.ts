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

/**
 * Settles memory once, `delayMs` after the server started listening: the first requests (a health check, a client
 * that was waiting for the restart) are answered first, and the collection, tens of milliseconds, comes after them.
 * The timer does not keep the process alive.
 */
export function settleMemoryAfterStart(delayMs = 200): void {
  setTimeout(settleMemory, delayMs).unref();
}
