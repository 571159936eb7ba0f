// The inbox load generator, its own process: `count` activities from the
// remote actors of bench/lib/remote-hosts.mjs, signed (draft-cavage,
// RSA-SHA256, node:crypto) before the clock starts so that signing does not
// compete with the server for the CPU, then POSTed to a shared inbox over
// `connections` keep-alive connections. Half are Create(Note), half Like of
// a local post when like targets are given. Prints one JSON line with the
// answers' statuses, p50/p99, the wall-clock window of the sends, and this
// process's CPU and the machine's over them.
//
// Input (JSON file): { url, host, tag, count, connections, actors: [{ id, key }], keys: [privateKeyPem], likeTargets: [uri] }
// `host` is the Host header signed and sent, so one set of requests serves Kith and the baseline alike.

import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { signedActivity } from "./inbox-activities.mjs";
import { machineBusyMs } from "./processes.mjs";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const target = new URL(spec.url);
const activities = {
  host: spec.host,
  path: target.pathname,
  tag: spec.tag,
  actors: spec.actors,
  privateKeys: spec.keys.map((pem) => createPrivateKey(pem)),
  likeTargets: spec.likeTargets,
};

const signingStarted = performance.now();
const requests = Array.from({ length: spec.count }, (_, i) => signedActivity(activities, i));
const signingMs = performance.now() - signingStarted;

const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
function send({ body, headers }) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      { host: target.hostname, port: target.port, method: "POST", path: target.pathname, agent, headers },
      (response) => {
        response.on("data", () => {});
        response.on("end", () => resolve({ status: response.statusCode ?? 0, ns: Number(process.hrtime.bigint() - started) }));
      },
    );
    request.on("error", () => resolve({ status: 0, ns: Number(process.hrtime.bigint() - started) }));
    request.end(body);
  });
}

const latencies = [];
const statuses = {};
let next = 0;
const startedAt = performance.timeOrigin + performance.now();
// This process shares the machine with the server: its own CPU and the machine's over the sends (not over the
// signing before them) are reported beside the server's.
const cpuBefore = process.cpuUsage();
const machineBefore = machineBusyMs();
await Promise.all(
  Array.from({ length: spec.connections }, async () => {
    while (next < requests.length) {
      const result = await send(requests[next++]);
      latencies.push(result.ns);
      statuses[result.status] = (statuses[result.status] ?? 0) + 1;
    }
  }),
);
const endedAt = performance.timeOrigin + performance.now();
const machineMs = machineBusyMs() - machineBefore;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] / 1e6 : null);
process.stdout.write(
  `${JSON.stringify({ sent: latencies.length, statuses, p50: at(0.5), p99: at(0.99), startedAt, endedAt, signingMs, cpuMs, machineMs })}\n`,
);
