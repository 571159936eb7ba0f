/**
 * Throughput of the Redis (BullMQ) queue adapter: 2,000 no-op jobs, worked
 * at concurrency 1 and 8, in this one process.
 *
 *   pnpm bench:queue-redis
 *
 * Uses the Redis server at KITH_BENCH_REDIS_URL; without it, starts a
 * throwaway `redis-server` (no persistence) on a free port when one is
 * installed. Runs against the built packages (`dist/`), which the root script
 * builds first. Each run writes under a key prefix of its own and deletes it
 * afterwards. Not part of the test suite: timings vary with the machine.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";
import { MonotonicIdGenerator, coreMigrations, systemClock, systemRandom } from "@kith/core";
import { createRedisQueue } from "@kith/queue-redis";
import { createSqliteStorage } from "@kith/storage-sqlite";

// ioredis is a dependency of the adapter, not of the workspace root: resolved from the adapter's package.
const adapterRequire = createRequire(new URL("../packages/queue-redis/package.json", import.meta.url));
const { Redis } = await import(pathToFileURL(adapterRequire.resolve("ioredis")).href);

const JOBS = Number(process.env.KITH_BENCH_JOBS ?? 2_000);
const CONCURRENCIES = [1, 8];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startThrowawayRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("spawn", resolve);
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    // A fresh client per try: one that failed to connect cannot be told to connect again.
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on("error", () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (error) {
      probe.disconnect();
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, stop: () => child.kill("SIGTERM") };
}

async function deletePrefix(url, prefix) {
  const redis = new Redis(url);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1_000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
  await redis.quit();
}

function rate(count, ms) {
  return Math.round((count / ms) * 1_000);
}

/** Enqueues JOBS jobs with no worker running, then starts one and times until all have run. */
async function run(url, concurrency) {
  const prefix = `kithbench${randomBytes(4).toString("hex")}`;
  const storage = createSqliteStorage({ filename: ":memory:" });
  await storage.migrate(coreMigrations);
  const queue = createRedisQueue({ url, storage, ids: new MonotonicIdGenerator(systemClock, systemRandom), prefix });
  let done = 0;
  let allDone = () => {};
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
  try {
    const enqueueStart = performance.now();
    for (let n = 0; n < JOBS; n++) await queue.enqueue("bench", { n });
    const enqueueMs = performance.now() - enqueueStart;
    const workStart = performance.now();
    await queue.start();
    await finished;
    const workMs = performance.now() - workStart;
    return { concurrency, enqueueMs, workMs };
  } finally {
    await queue.stop();
    await storage.close();
    await deletePrefix(url, prefix);
  }
}

const given = process.env.KITH_BENCH_REDIS_URL;
const server = given ? { url: given, stop: () => {} } : await startThrowawayRedis();
try {
  const info = new Redis(server.url);
  const version = /redis_version:(\S+)/.exec(await info.info("server"))?.[1] ?? "?";
  await info.quit();
  console.log(`Redis ${version} at ${server.url}${given ? "" : " (throwaway)"}; ${JOBS} no-op jobs per run`);
  for (const concurrency of CONCURRENCIES) {
    const result = await run(server.url, concurrency);
    console.log(
      `concurrency ${String(concurrency).padStart(2)}: enqueue ${rate(JOBS, result.enqueueMs)} jobs/s (one at a time, awaited), ` +
        `work ${rate(JOBS, result.workMs)} jobs/s (${Math.round(result.workMs)} ms)`,
    );
  }
} finally {
  server.stop();
}
