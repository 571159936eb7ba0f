// Throughput of the durable SQL queue (core's SqlQueue): jobs per second to
// enqueue, and to work, for no-op jobs, on SQLite (in memory and on a WAL
// file) and, when KITH_BENCH_POSTGRES_URL is set, on PostgreSQL (a scratch
// database is created on that server and dropped afterwards, so the URL's
// role must be allowed to create databases). Runs on the built packages:
// `pnpm bench:queue` builds them first.
//
//   KITH_BENCH_JOBS=2000                       jobs per run
//   KITH_BENCH_CONCURRENCY=1,8                 queue concurrencies to measure
//   KITH_BENCH_POSTGRES_URL=postgres://...     also measure PostgreSQL
//
// A measurement, not a test: numbers depend on the machine and disk.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importBuilt } from "./lib/built.mjs";

const core = await importBuilt("@kith/core");
if (typeof core.SqlQueue !== "function") {
  console.error("The build of @kith/core has no SqlQueue: it is older than the sources; run `pnpm build` first.");
  process.exit(1);
}
const { createSqliteStorage } = await importBuilt("@kith/storage-sqlite");

const JOBS = Number(process.env.KITH_BENCH_JOBS ?? 2_000);
const CONCURRENCIES = (process.env.KITH_BENCH_CONCURRENCY ?? "1,8").split(",").map(Number);
const POSTGRES_URL = process.env.KITH_BENCH_POSTGRES_URL;

/** Opens an empty, migrated database; returns it with a function that disposes of it. */
const backends = [
  {
    name: "sqlite :memory:",
    async open() {
      const storage = createSqliteStorage({ filename: ":memory:" });
      await storage.migrate(core.coreMigrations);
      return { storage, dispose: () => storage.close() };
    },
  },
  {
    name: "sqlite file (WAL)",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "kith-bench-"));
      const storage = createSqliteStorage({ filename: join(dir, "bench.sqlite") });
      await storage.migrate(core.coreMigrations);
      return {
        storage,
        dispose: async () => {
          await storage.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

if (POSTGRES_URL) {
  const postgres = await importBuilt("@kith/storage-postgres");
  let counter = 0;
  backends.push({
    name: "postgres",
    async open() {
      const name = `kith_bench_${process.pid}_${++counter}`;
      const url = await postgres.createPostgresDatabase(POSTGRES_URL, name);
      const storage = postgres.createPostgresStorage({ connectionString: url, max: 10 });
      await storage.migrate(core.coreMigrations);
      return {
        storage,
        dispose: async () => {
          await storage.close();
          await postgres.dropPostgresDatabase(POSTGRES_URL, name);
        },
      };
    },
  });
}

async function measure(backend, concurrency) {
  const { storage, dispose } = await backend.open();
  try {
    const queue = new core.SqlQueue({ storage, ids: new core.MonotonicIdGenerator(core.systemClock, core.systemRandom) });
    let done = 0;
    let allDone;
    const finished = new Promise((resolve) => {
      allDone = resolve;
    });
    queue.handle(
      "bench",
      async () => {
        done += 1;
        if (done === JOBS) allDone();
      },
      { concurrency },
    );

    const enqueueStart = performance.now();
    for (let n = 0; n < JOBS; n++) await queue.enqueue("bench", { n });
    const enqueueMs = performance.now() - enqueueStart;

    const workStart = performance.now();
    await queue.start();
    await finished;
    // stop() waits for the last outcomes to be written: the jobs are finished in the database, not just run.
    await queue.stop();
    const workMs = performance.now() - workStart;

    const counts = await queue.counts("bench");
    if (counts.finished !== JOBS) throw new Error(`Expected ${JOBS} finished jobs, found ${counts.finished}`);
    return { enqueuePerSecond: (JOBS / enqueueMs) * 1000, workPerSecond: (JOBS / workMs) * 1000 };
  } finally {
    await dispose();
  }
}

const rows = [];
for (const backend of backends) {
  for (const concurrency of CONCURRENCIES) {
    process.stderr.write(`${backend.name}, concurrency ${concurrency}...\n`);
    const result = await measure(backend, concurrency);
    rows.push([backend.name, String(concurrency), result.enqueuePerSecond.toFixed(0), result.workPerSecond.toFixed(0)]);
  }
}

const header = ["backend", "concurrency", "enqueue jobs/s", "worked jobs/s"];
const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
const line = (cells) => `| ${cells.map((cell, i) => (i < 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(" | ")} |`;
console.log(`SqlQueue throughput, ${JOBS} no-op jobs per run (Node ${process.version}, ${process.platform}/${process.arch})`);
console.log(line(header));
console.log(`|${widths.map((width, i) => (i < 1 ? `${"-".repeat(width + 1)}-` : `${"-".repeat(width + 1)}:`)).join("|")}|`);
for (const row of rows) console.log(line(row));
if (!POSTGRES_URL) console.log("(PostgreSQL not measured: set KITH_BENCH_POSTGRES_URL to a server URL whose role may create databases)");
