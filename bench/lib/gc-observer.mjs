// Loaded into `kith serve` with `--import` when KITH_BENCH_GC names a file: adds up the server's garbage-collection
// pauses, young (scavenges) and full (mark-compact) apart, and keeps the longest pause since the totals were last
// written. It writes them to that file when the benchmark sends the process SIGUSR2 (gc-pauses.mjs), before and
// after each scenario: a pause stops every request in the server, so it shows in the tail of the latencies. Written
// on demand rather than every few hundred milliseconds, so that the counting takes no time of its own from the
// requests.

import { renameSync, writeFileSync } from "node:fs";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

const out = process.env.KITH_BENCH_GC;

// Workers inherit the server's `--import`; the main thread's pauses are the ones that hold requests.
if (out && isMainThread) {
  const totals = { young: { count: 0, ms: 0 }, full: { count: 0, ms: 0 }, longestMs: 0 };
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: totals.young, [constants.NODE_PERFORMANCE_GC_MAJOR]: totals.full };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      totals.longestMs = Math.max(totals.longestMs, entry.duration);
      const sum = kinds[entry.detail?.kind];
      if (!sum) continue;
      sum.count++;
      sum.ms += entry.duration;
    }
  }).observe({ entryTypes: ["gc"] });
  // Written whole and renamed into place: the benchmark waits for the file to appear, then reads it. The longest
  // pause starts anew with each writing, so the one after a scenario is that scenario's.
  process.on("SIGUSR2", () => {
    writeFileSync(`${out}.next`, JSON.stringify(totals));
    renameSync(`${out}.next`, out);
    totals.longestMs = 0;
  });
}
