// Reads a file of running totals that a module loaded into the server rewrites every 200 ms (statement-counter.mjs,
// gc-observer.mjs): after waiting for its next write, so that the totals include what came just before.

import { readFileSync } from "node:fs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The totals in `file` after its next write, or `unread` when it cannot be read. */
export async function flushedTotals(file, unread) {
  await sleep(300);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return unread;
  }
}
