// Starting the processes a benchmark measures, and reading what they cost
// from /proc (Linux): CPU time, resident and peak memory.

import { spawn } from "node:child_process";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

const ROOT = new URL("../..", import.meta.url).pathname;
const TICKS_PER_SECOND = 100;

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU milliseconds (user + system) the process has used so far, or with `mainThread` its main thread alone (the one
 * that runs JavaScript; the rest is libuv's pool, V8's helpers and the garbage collector's threads).
 */
export function cpuMs(pid, { mainThread = false } = {}) {
  const path = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = readFileSync(path, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * Milliseconds the process's main thread has so far spent waiting for a core while it had work (runnable, not
 * running: another process or thread had the cores), or null where Linux keeps no scheduler statistics
 * (`/proc/<pid>/task/<pid>/schedstat`: time on a core, time waiting, in nanoseconds).
 */
export function mainThreadWaitMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").trim().split(/\s+/);
    const waited = Number(fields[1]);
    return Number.isFinite(waited) ? waited / 1e6 : null;
  } catch {
    return null;
  }
}

/** CPU milliseconds the whole machine has been busy so far (all processes, every core; Linux's /proc/stat). */
export function machineBusyMs() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const busy = fields.slice(0, 8).reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value), 0);
  return (busy * 1000) / TICKS_PER_SECOND;
}

/** Resident and peak resident memory in MB. */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** Starts the process's peak RSS (VmHWM) anew, so the next reading is the peak of one scenario (Linux 4.0 and newer). */
export function resetPeakMemory(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

async function waitForHealth(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`server at ${url} did not become healthy`);
}

/** Starts `kith serve` on a data directory (SQLite) or database URL; resolves when /health answers, with the cold-start time. */
export async function startKith({ dataDir, databaseUrl }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    KITH_PORT: String(port),
    KITH_HOST: "127.0.0.1",
    KITH_ORIGIN: url,
    KITH_DATA_DIR: dataDir,
    KITH_LOG_LEVEL: "warning",
    // The other servers of the federation scenarios listen on loopback.
    KITH_ALLOW_PRIVATE_ADDRESS: "true",
  };
  if (databaseUrl) env.KITH_DATABASE_URL = databaseUrl;
  else delete env.KITH_DATABASE_URL;
  delete env.KITH_REDIS_URL;
  const started = process.hrtime.bigint();
  // KITH_BENCH_PROFILE=<dir>: the server writes a V8 CPU profile there when it stops (to see where the time goes).
  const profile = process.env.KITH_BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.KITH_BENCH_PROFILE}`] : [];
  // KITH_BENCH_STATEMENTS=1: the server counts its SQLite statements (bench/lib/statement-counter.mjs) into a file of its data directory.
  const statements = process.env.KITH_BENCH_STATEMENTS && !databaseUrl ? join(dataDir, "statements.json") : null;
  if (statements) env.KITH_BENCH_STATEMENTS = statements;
  else delete env.KITH_BENCH_STATEMENTS;
  const counter = statements ? ["--import", join(ROOT, "bench/lib/statement-counter.mjs")] : [];
  // The server's garbage-collection pauses, counted in every run (bench/lib/gc-observer.mjs).
  const gc = join(dataDir, "gc.json");
  env.KITH_BENCH_GC = gc;
  // KITH_BENCH_NODE_ARGS: more options for the server's node (V8's, say), and KITH_BENCH_SERVER_STDOUT a file its
  // standard output is appended to (where V8's tracing options print).
  const nodeArgs = (process.env.KITH_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const stdout = process.env.KITH_BENCH_SERVER_STDOUT ? openSync(process.env.KITH_BENCH_SERVER_STDOUT, "a") : "ignore";
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      ...profile,
      "--import",
      join(ROOT, "bench/lib/gc-observer.mjs"),
      ...counter,
      join(ROOT, "apps/server/dist/cli.js"),
      "serve",
    ],
    { env, stdio: ["ignore", stdout, "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  try {
    await waitForHealth(url, child);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${error.message}\n${stderr}`);
  }
  const coldStartMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    url,
    pid: child.pid,
    coldStartMs,
    /** The statement totals so far (KITH_BENCH_STATEMENTS), or null. */
    statements,
    /** The garbage-collection pause totals so far (bench/lib/gc-observer.mjs). */
    gc,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Starts a bare baseline server in its own process: by default baseline-server.mjs (the requests' answers), or
 * `script` of bench/lib given the same kind of file (streaming-baseline.mjs).
 */
export async function startBaseline(answersFile, script = "baseline-server.mjs") {
  const child = spawn(process.execPath, [join(ROOT, "bench/lib", script), answersFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim())));
    child.once("exit", (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Runs the load generator in its own process against `url`. Given the server's `pid`, the result's `serverCpuMs` is
 * the CPU the server used in the measured windows alone (not in the warm-up before them: `warmupMs`, by default a
 * quarter of the duration up to a second). Given a `baseline` ({ url,
 * durationMs }), the same requests go to it in turns with the server's (load.mjs), and the result has its rate.
 */
export function load(url, request, { connections, durationMs, pid, baseline, warmupMs = Math.min(1_000, durationMs / 4) }) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bench/lib/load.mjs"), JSON.stringify({ url, ...request, connections, durationMs, warmupMs, pid, baseline })],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited with ${code}`))));
  });
}
