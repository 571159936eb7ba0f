// Loaded into `kith serve` with `--import` when KITH_BENCH_GC names a file: adds up the server's garbage-collection
// pauses, young (scavenges) and full (mark-compact) apart, and writes the totals, with the longest pauses and when
// they came, to that file when the benchmark sends the process SIGUSR2 (gc-pauses.mjs), before and after each
// scenario: a pause stops every request in the server, so it shows in the tail of the latencies. Written on demand
// rather than every few hundred milliseconds, so that the counting takes no time of its own from the requests.

import { renameSync, writeFileSync } from "node:fs";
import { PerformanceObserver, constants, performance } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

const out = process.env.KITH_BENCH_GC;
/** Pauses at least this long are kept one by one, to find a scenario's longest. */
const NOTED_MS = 2;
/** The noted pauses kept (the newest). */
const NOTED_KEPT = 2_000;

// Workers inherit the server's `--import`; the main thread's pauses are the ones that hold requests.
if (out && isMainThread) {
  const totals = { young: { count: 0, ms: 0 }, full: { count: 0, ms: 0 }, other: { count: 0, ms: 0 }, noted: [] };
  const kindOf = (kind) =>
    kind === constants.NODE_PERFORMANCE_GC_MINOR ? "young" : kind === constants.NODE_PERFORMANCE_GC_MAJOR ? "full" : "other";
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const sum = totals[kindOf(entry.detail?.kind)];
      sum.count++;
      sum.ms += entry.duration;
      if (entry.duration >= NOTED_MS) {
        totals.noted.push([Math.round(performance.timeOrigin + entry.startTime), Number(entry.duration.toFixed(2))]);
        if (totals.noted.length > NOTED_KEPT) totals.noted.splice(0, totals.noted.length - NOTED_KEPT);
      }
    }
  }).observe({ entryTypes: ["gc"] });
  // Written whole and renamed into place: the benchmark waits for the file to appear, then reads it.
  process.on("SIGUSR2", () => {
    writeFileSync(`${out}.next`, JSON.stringify(totals));
    renameSync(`${out}.next`, out);
  });
}
