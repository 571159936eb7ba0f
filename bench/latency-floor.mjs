// What p50 and p99 a server gets at 10 connections on this machine when all it
// does is spend a fixed CPU time on each request: a bare node:http server that
// spins for that long, then answers 70 KB (a page of 40 posts) from memory,
// driven by the benchmark's own load generator (bench/lib/load.mjs). No
// database, no garbage, no Kith: the latencies a single-threaded server of that
// cost gets, to read Kith's against. Each spin is measured twice: with requests
// started as Node reads them (what a plain node:http server does), and first
// come, first served, one a turn of the event loop, as Kith's node adapter
// starts them (packages/http-adapter-node/src/arrival-queue.ts, built).
//
//   pnpm bench:latency-floor                       spins of 0.4 to 1.4 ms
//   --spins=0.8,1.1 --seconds=4 --connections=10
//
// A measurement, not a test: numbers depend on the machine.

import { spawn } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { benchArgs } from "./lib/args.mjs";
import { importBuilt } from "./lib/built.mjs";
import { load } from "./lib/processes.mjs";

const PAGE_BYTES = 72_000;

const args = benchArgs();

/** The server side, run as a child process (`--serve=<ms>`) so the load generator's CPU is not its own. */
async function serve(spinMs, inArrivalOrder) {
  const body = Buffer.alloc(PAGE_BYTES, "a");
  const answer = (request, response) => {
    request.resume();
    request.on("end", () => {
      const until = performance.now() + spinMs;
      while (performance.now() < until);
      response.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(body);
    });
  };
  const arrivals = inArrivalOrder ? (await importBuilt("@kith/http-adapter-node")).createArrivalQueue() : null;
  const server = http.createServer((request, response) => {
    if (arrivals) void arrivals.admit().then(() => answer(request, response));
    else answer(request, response);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
}

/** Runs bench/lib/load.mjs against a spinning server; its p50 and p99 in ms, requests a second and CPU a request. */
async function measure(spinMs, inArrivalOrder, seconds, connections) {
  const serverArgs = [fileURLToPath(import.meta.url), `--serve=${spinMs}`, ...(inArrivalOrder ? ["--arrival-order"] : [])];
  const server = spawn(process.execPath, serverArgs, { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const [chunk] = await once(server.stdout, "data");
    const port = Number(String(chunk).trim());
    const result = await load(
      `http://127.0.0.1:${port}`,
      { path: "/" },
      { connections, durationMs: seconds * 1000, warmupMs: 500, pid: server.pid },
    );
    return { ...result, cpuMsPerRequest: result.serverCpuMs / result.requests };
  } finally {
    server.kill();
  }
}

if (args.serve) await serve(Number(args.serve), args["arrival-order"] === "true");
else {
  const spins = (args.spins ?? "0.4,0.6,0.8,0.9,1.0,1.1,1.2,1.4").split(",").map(Number);
  const seconds = Number(args.seconds ?? 4);
  const connections = Number(args.connections ?? 10);
  console.log(`| spin ms | started | CPU ms/req | req/s | p50 ms | p99 ms | p99 / p50 |`);
  console.log(`|---:|---|---:|---:|---:|---:|---:|`);
  for (const spin of spins) {
    for (const inArrivalOrder of [false, true]) {
      const r = await measure(spin, inArrivalOrder, seconds, connections);
      const started = inArrivalOrder ? "in arrival order" : "as read";
      console.log(
        `| ${spin.toFixed(1)} | ${started} | ${r.cpuMsPerRequest.toFixed(2)} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${(r.p99 / r.p50).toFixed(2)} |`,
      );
    }
  }
}
