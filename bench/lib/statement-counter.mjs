// Loaded into `kith serve` with `--import` when KITH_BENCH_STATEMENTS names a
// file (SQLite only): counts every statement the server runs, and the time
// SQLite spent in it, by statement text, and writes the running totals to
// that file every 200 ms. The federation scenarios read it before and after
// they run and report the statements of one activity and one delivery.

import { renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const out = process.env.KITH_BENCH_STATEMENTS;
if (out) {
  // better-sqlite3 as the SQLite adapter loads it: one module, one Statement prototype.
  const require = createRequire(join(new URL("../../packages/storage-sqlite/", import.meta.url).pathname, "package.json"));
  const Database = require("better-sqlite3");
  const probe = new Database(":memory:");
  const Statement = Object.getPrototypeOf(probe.prepare("select 1"));
  probe.close();
  const totals = {};
  for (const method of ["all", "run", "get", "iterate"]) {
    const original = Statement[method];
    Statement[method] = function counted(...args) {
      const text = this.source.replace(/\s+/g, " ").trim();
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        totals[text] ??= { count: 0, us: 0 };
        const entry = totals[text];
        entry.count++;
        entry.us += Number(process.hrtime.bigint() - started) / 1_000;
      }
    };
  }
  // Written whole and renamed into place: the benchmark reads the file while this writes it, and a half-written file
  // read as no totals at all had made a scenario's statements come out as none.
  const flush = () => {
    writeFileSync(`${out}.next`, JSON.stringify(totals));
    renameSync(`${out}.next`, out);
  };
  setInterval(flush, 200).unref();
  process.once("exit", flush);
}
