import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { type EventLoopDelayProbe, startEventLoopDelayProbe } from "./event-loop-delay.js";
import { nodeRequest, useServers } from "./test-support.js";

const start = useServers();

/** A probe that reports whatever delay the test sets. */
function fixedProbe(delayMs: number): EventLoopDelayProbe {
  return { delayMs: () => delayMs, stop: () => {} };
}

/** Keeps the event loop (and so the whole process) busy for `ms`. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy on purpose: this is the saturation under test.
  }
}

/** Opens a connection; the returned function writes a request on it at once and resolves with the raw answer. */
async function openConnection(url: string): Promise<(text: string) => Promise<string>> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<string>((resolve, reject) => {
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
  return (text) => {
    socket.write(text);
    return ended;
  };
}

describe("load shedding", () => {
  it("answers 503 with Retry-After, without calling the handler, while the event loop runs late", async () => {
    let calls = 0;
    const server = await start({
      handler: async () => {
        calls++;
        return new Response("ok");
      },
      loadShedding: { maxEventLoopDelayMs: 1_000, probe: fixedProbe(4_200) },
    });
    const response = await nodeRequest(server.url, { method: "POST", path: "/api/v1/statuses", chunks: ['{"status":"x"}'] });
    expect(response.status).toBe(503);
    expect(response.headers["retry-after"]).toBe("5");
    expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code: "server.overloaded" });
    expect(calls).toBe(0);
  });

  it("still answers health checks while saturated", async () => {
    const server = await start({
      handler: async () => new Response("healthy"),
      loadShedding: { maxEventLoopDelayMs: 1_000, probe: fixedProbe(4_200) },
    });
    for (const path of ["/health", "/api/v1/streaming/health"]) {
      const response = await nodeRequest(server.url, { path });
      expect(response.status, path).toBe(200);
      expect(response.body).toBe("healthy");
    }
  });

  it("lets requests through while the delay is within the bound, and never sheds with a bound of 0", async () => {
    const within = await start({ handler: async () => new Response("ok"), loadShedding: { maxEventLoopDelayMs: 1_000, probe: fixedProbe(900) } });
    expect((await nodeRequest(within.url, { path: "/api/v1/timelines/home" })).status).toBe(200);
    const off = await start({ handler: async () => new Response("ok"), loadShedding: { maxEventLoopDelayMs: 0, probe: fixedProbe(60_000) } });
    expect((await nodeRequest(off.url, { path: "/api/v1/timelines/home" })).status).toBe(200);
  });

  it("sheds the requests that arrived while the event loop was really blocked, and answers health", async () => {
    const server = await start({ handler: async () => new Response("ok"), loadShedding: { maxEventLoopDelayMs: 200 } });
    const [timeline, health] = await Promise.all([openConnection(server.url), openConnection(server.url)]);
    // Both requests reach the kernel at once; the server reads them only once the block is over.
    const timelineAnswer = timeline("GET /api/v1/timelines/public HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const healthAnswer = health("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    blockEventLoop(600);
    expect(await timelineAnswer).toMatch(/^HTTP\/1\.1 503 .*\r\n(?:.*\r\n)*retry-after: \d+\r\n/i);
    expect(await healthAnswer).toMatch(/^HTTP\/1\.1 200 /);
    // Once the loop keeps up again, the same request is served.
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await nodeRequest(server.url, { path: "/api/v1/timelines/public" })).status).toBe(200);
  });
});

describe("the event loop delay probe", () => {
  it("reports a block of the loop as it ends, and nothing once the loop keeps up", async () => {
    const probe = startEventLoopDelayProbe(20);
    try {
      blockEventLoop(300);
      expect(probe.delayMs()).toBeGreaterThanOrEqual(250);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(probe.delayMs()).toBeLessThan(250);
    } finally {
      probe.stop();
    }
  });
});
