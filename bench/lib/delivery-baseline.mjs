// The practical limit of a delivery: a bare script that signs one body
// (draft-cavage, node:crypto) for each inbox and POSTs it over loopback, all
// at once, as a sender that had nothing else to do would. Input (JSON file):
// { inboxes: [url], body, keyId, privateKey }. It stays up and delivers one
// round for each line read on stdin, printing one JSON line per round with the
// statuses, the wall-clock window, signing included, and the CPU the script
// used in it. Rounds after the first reuse its keep-alive connections and its
// warmed-up code, as Kith's later posts do.

import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createInterface } from "node:readline";
import { signedHeaders } from "./http-signature.mjs";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const privateKey = createPrivateKey(spec.privateKey);
const agent = new http.Agent({ keepAlive: true });

function deliver(inbox) {
  const url = new URL(inbox);
  const headers = signedHeaders({ host: url.host, path: url.pathname, body: spec.body, keyId: spec.keyId, privateKey });
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: url.pathname,
        agent,
        headers: { ...headers, "content-length": Buffer.byteLength(spec.body) },
      },
      (response) => {
        response.on("data", () => {});
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    request.on("error", () => resolve(0));
    request.end(spec.body);
  });
}

async function round() {
  const startedAt = performance.timeOrigin + performance.now();
  const cpuBefore = process.cpuUsage();
  const answers = await Promise.all(spec.inboxes.map(deliver));
  const cpu = process.cpuUsage(cpuBefore);
  const endedAt = performance.timeOrigin + performance.now();
  const statuses = {};
  for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1;
  process.stdout.write(`${JSON.stringify({ statuses, startedAt, endedAt, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

for await (const _line of createInterface({ input: process.stdin })) await round();
agent.destroy();
