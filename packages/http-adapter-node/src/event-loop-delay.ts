/**
 * Measures how late the event loop runs, with a timer drift probe: a timer
 * that should fire every `intervalMs` notes by how much it fired late. A
 * request read right after the loop was blocked sees the block either in the
 * last tick's lateness or, before the probe has fired again, in how overdue
 * the probe is now. `monitorEventLoopDelay` gives percentiles over a window,
 * which answer "how slow was it" rather than "is it slow now".
 */
export interface EventLoopDelayProbe {
  /** Milliseconds the event loop is running late now (0 when it keeps up). */
  delayMs(): number;
  /** Stops the probe's timer. */
  stop(): void;
}

/** @default intervalMs 50 */
export function startEventLoopDelayProbe(intervalMs = 50): EventLoopDelayProbe {
  let lastTick = performance.now();
  let lastLateness = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lastLateness = Math.max(0, now - lastTick - intervalMs);
    lastTick = now;
  }, intervalMs);
  // The probe never keeps a process alive on its own.
  timer.unref();
  return {
    delayMs: () => Math.max(lastLateness, performance.now() - lastTick - intervalMs, 0),
    stop: () => clearInterval(timer),
  };
}
