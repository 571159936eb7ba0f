// The load generator, run as its own process so its work is not counted
// against the server: `node bench/lib/load.mjs '<json>'` prints one JSON
// line of results. Closed loop: each connection sends its next request when
// the previous answer has been read (keep-alive), for a fixed duration.
//
// Input: { url, method, path, headers, body?, bodyTemplate?, connections, durationMs, warmupMs, pid?, baseline? }
// With the server's `pid`, the result has `serverCpuMs`: its CPU from the first measured window on, without the warm-up,
// and `serverMainWaitMs`: the time its main thread waited for a core over the same span (null where Linux does not say).
// `serverAnswered` counts every request the server answered, the warm-up's included.
// `bodyTemplate` has `{n}` replaced by a request counter, so posts differ.
//
// With `baseline: { url, durationMs }`, the same requests go to the baseline too, in turns: the measured time is cut
// into `rounds` windows for each target, taken one after the other (the server's, then the baseline's, ...), and the
// result has `baseline: { requests, rps, p50, p99 }` for the baseline's windows together. The machine's speed drifts by tens of
// percent within a minute; taken in turns, both sides see the same drift and their ratio stays put.

import http from "node:http";
import { cpuMs, mainThreadWaitMs } from "./processes.mjs";

const spec = JSON.parse(process.argv[2]);
const rounds = spec.baseline ? (spec.rounds ?? 3) : 1;

function target(url) {
  return { url: new URL(url), agent: new http.Agent({ keepAlive: true, maxSockets: spec.connections }) };
}

function once({ url, agent }, n) {
  return new Promise((resolve) => {
    const body = spec.bodyTemplate ? spec.bodyTemplate.replaceAll("{n}", String(n)) : spec.body;
    const started = process.hrtime.bigint();
    const request = http.request(
      { host: url.hostname, port: url.port, method: spec.method ?? "GET", path: spec.path, agent, headers: spec.headers ?? {} },
      (response) => {
        response.on("data", () => {});
        response.on("end", () => resolve({ status: response.statusCode ?? 0, ns: Number(process.hrtime.bigint() - started) }));
      },
    );
    request.on("error", () => resolve({ status: 0, ns: Number(process.hrtime.bigint() - started) }));
    if (body !== undefined) request.end(body);
    else request.end();
  });
}

let counter = 0;
/** Every request the server answered, the warm-up's too: what its statement totals are divided by. */
let serverAnswered = 0;

/** Sends requests on every connection for `durationMs`; the seconds it took, every answer read. */
async function run(to, durationMs, record) {
  const started = process.hrtime.bigint();
  const deadline = Date.now() + durationMs;
  const worker = async () => {
    while (Date.now() < deadline) {
      const result = await once(to, counter++);
      if (to === server) serverAnswered++;
      record?.(result);
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const server = target(spec.url);
const baseline = spec.baseline ? target(spec.baseline.url) : null;
await run(server, spec.warmupMs ?? 500);
if (baseline) await run(baseline, Math.min(spec.warmupMs ?? 500, 300));

const latencies = [];
const baselineLatencies = [];
const statuses = {};
// The server's CPU from its first window to the end: in the baseline's windows it may still finish work the requests
// before left (a post's fan-out), which is theirs.
const serverCpuBefore = spec.pid ? cpuMs(spec.pid) : null;
const serverWaitBefore = spec.pid ? mainThreadWaitMs(spec.pid) : null;
let serverSeconds = 0;
let baselineSeconds = 0;
for (let round = 0; round < rounds; round++) {
  serverSeconds += await run(server, spec.durationMs / rounds, (result) => {
    latencies.push(result.ns);
    statuses[result.status] = (statuses[result.status] ?? 0) + 1;
  });
  if (baseline) {
    baselineSeconds += await run(baseline, spec.baseline.durationMs / rounds, (result) => {
      baselineLatencies.push(result.ns);
    });
  }
}
const serverCpuMs = serverCpuBefore === null ? null : cpuMs(spec.pid) - serverCpuBefore;
const serverWaitAfter = serverWaitBefore === null ? null : mainThreadWaitMs(spec.pid);
// In the baseline's windows the server is idle, and waits for no core: the wait is that of its own windows.
const serverMainWaitMs = serverWaitAfter === null ? null : serverWaitAfter - serverWaitBefore;
/** The p50 and p99 of a list of nanoseconds, in milliseconds (null for an empty list). */
function quantiles(list) {
  const sorted = list.toSorted((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6 : null);
  return { p50: at(0.5), p99: at(0.99) };
}
server.agent.destroy();
baseline?.agent.destroy();
const result = {
  requests: latencies.length,
  rps: latencies.length / serverSeconds,
  ...quantiles(latencies),
  statuses,
  serverCpuMs,
  serverMainWaitMs,
  serverAnswered,
};
if (baseline)
  result.baseline = {
    requests: baselineLatencies.length,
    rps: baselineLatencies.length / baselineSeconds,
    ...quantiles(baselineLatencies),
  };
process.stdout.write(`${JSON.stringify(result)}\n`);
