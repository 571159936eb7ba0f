// The load generator, run as its own process so its work is not counted
// against the server: `node bench/lib/load.mjs '<json>'` prints one JSON
// line of results. Closed loop: each connection sends its next request when
// the previous answer has been read (keep-alive), for a fixed duration.
//
// Input: { url, method, path, headers, body?, bodyTemplate?, connections, durationMs, warmupMs, pid? }
// With the server's `pid`, the result has `serverCpuMs`: its CPU in the measured window, without the warm-up.
// `bodyTemplate` has `{n}` replaced by a request counter, so posts differ.

import http from "node:http";
import { cpuMs } from "./processes.mjs";

const spec = JSON.parse(process.argv[2]);
const target = new URL(spec.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });

function once(n) {
  return new Promise((resolve) => {
    const body = spec.bodyTemplate ? spec.bodyTemplate.replaceAll("{n}", String(n)) : spec.body;
    const started = process.hrtime.bigint();
    const request = http.request(
      { host: target.hostname, port: target.port, method: spec.method ?? "GET", path: spec.path, agent, headers: spec.headers ?? {} },
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

async function run(durationMs, record) {
  const deadline = Date.now() + durationMs;
  let counter = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const result = await once(counter++);
      record?.(result);
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, worker));
}

await run(spec.warmupMs ?? 500);
const latencies = [];
const statuses = {};
const serverCpuBefore = spec.pid ? cpuMs(spec.pid) : null;
const startedAt = process.hrtime.bigint();
await run(spec.durationMs, (result) => {
  latencies.push(result.ns);
  statuses[result.status] = (statuses[result.status] ?? 0) + 1;
});
const elapsedS = Number(process.hrtime.bigint() - startedAt) / 1e9;
const serverCpuMs = serverCpuBefore === null ? null : cpuMs(spec.pid) - serverCpuBefore;
latencies.sort((a, b) => a - b);
const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] / 1e6 : null);
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, rps: latencies.length / elapsedS, p50: at(0.5), p99: at(0.99), statuses, serverCpuMs })}\n`,
);
