// Reads what bench/lib/gc-observer.mjs writes in the server (KITH_BENCH_GC) when asked: its garbage-collection pauses
// so far, to report those of one scenario from the totals before and after it.

import { existsSync, readFileSync, rmSync } from "node:fs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's pause totals so far, or null when it does not count or does not answer within a second. */
export async function gcTotals(kith) {
  if (!kith.gc) return null;
  rmSync(kith.gc, { force: true });
  process.kill(kith.pid, "SIGUSR2");
  for (let waited = 0; waited < 1_000; waited += 20) {
    await sleep(20);
    if (existsSync(kith.gc)) return JSON.parse(readFileSync(kith.gc, "utf8"));
  }
  return null;
}

/**
 * The pauses between two totals: young and full collections' milliseconds per unit of work (a request, a stored
 * activity) and how many there were, and the longest pause in between (the observer keeps it since its last writing).
 */
export function gcPausesPer(before, after, units) {
  if (!before || !after || !units) return null;
  const part = (kind) => ({ count: after[kind].count - before[kind].count, msPerUnit: (after[kind].ms - before[kind].ms) / units });
  return { young: part("young"), full: part("full"), longestMs: after.longestMs };
}

/** One log line for `gcPausesPer`. */
export function describeGcPauses(label, pauses) {
  if (!pauses) return [];
  const { young, full, longestMs } = pauses;
  return [
    `  garbage collection ${label}: young ${young.msPerUnit.toFixed(3)} ms (${young.count} pauses), full ${full.msPerUnit.toFixed(3)} ms (${full.count}), longest pause ${longestMs.toFixed(1)} ms`,
  ];
}
