import { get as httpGet } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, sleep } from "@kith/core/testing";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { type ServerConfig, loadConfig } from "./config.js";
import { type RunningServer, type ServeRole, serve } from "./serve.js";

// Provided by the repository's global setup (tests/setup/real-servers.ts); declared here too, as this package is type-checked on its own.
declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | null;
    redisUrl: string | null;
  }
}

/** The run's throwaway Redis server, on a database of this suite's own; null when Redis is not installed. */
function redisDatabaseUrl(): string | null {
  const server = inject("redisUrl") ?? null;
  if (!server) return null;
  const url = new URL(server);
  url.pathname = "/3";
  return url.toString();
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

describe("kith serve --role", () => {
  let dataDir: string;
  let config: ServerConfig;
  const running: RunningServer[] = [];
  /** Payloads the "probe" handler of each server saw. */
  const worked = new Map<ServeRole, unknown[]>();

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-serve-"));
    config = loadConfig({ KITH_DATA_DIR: dataDir, KITH_PORT: String(await freePort()), KITH_LOG_LEVEL: "error" });
    worked.clear();
  });
  afterEach(async () => {
    for (const server of running.splice(0)) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(role: ServeRole, port = config.port, redisUrl: string | null = null): Promise<RunningServer> {
    const seen: unknown[] = [];
    worked.set(role, seen);
    const server = await serve({ ...config, port, redisUrl }, role, {
      installSignalHandlers: false,
      prepare: (kith) =>
        kith.queue.handle("probe", async (payload) => {
          seen.push(payload);
        }),
    });
    running.push(server);
    return server;
  }

  it("sends the API reference and the OpenAPI document compressed to clients that accept it", async () => {
    const web = await start("web");
    for (const path of ["/api/v1/docs", "/api/v1/openapi.json"]) {
      const sizes: Record<string, number> = {};
      for (const coding of ["br", "gzip", "identity"]) {
        const answer = await new Promise<{ encoding: string | undefined; length: number }>((resolve, reject) => {
          const req = httpGet(new URL(path, web.url ?? ""), { headers: { "accept-encoding": coding } }, (res) => {
            let length = 0;
            res.on("data", (chunk: Buffer) => {
              length += chunk.byteLength;
            });
            res.on("end", () => resolve({ encoding: res.headers["content-encoding"], length }));
          });
          req.on("error", reject);
        });
        expect(answer.encoding, `${path} ${coding}`).toBe(coding === "identity" ? undefined : coding);
        sizes[coding] = answer.length;
      }
      expect(sizes.br, path).toBeLessThan((sizes.identity ?? 0) / 4);
      expect(sizes.gzip, path).toBeLessThan((sizes.identity ?? 0) / 4);
    }
  });

  it("web answers HTTP and works no jobs", async () => {
    const web = await start("web");
    expect(web.url).not.toBeNull();
    const response = await fetch(new URL("/health", web.url ?? ""));
    expect(response.status).toBe(200);
    const job = await web.kith.queue.enqueue("probe", { n: 1 });
    await sleep(400);
    expect(worked.get("web")).toEqual([]);
    expect((await web.kith.queue.get(job.id))?.status).toBe("submitted");
    expect((await web.kith.queue.processes()).filter((entry) => entry.pid === process.pid)).toEqual([]);
  });

  it("worker works jobs and opens no port", async () => {
    const worker = await start("worker");
    expect(worker.url).toBeNull();
    const job = await worker.kith.queue.enqueue("probe", { n: 2 });
    await eventually(() => expect(worked.get("worker")).toEqual([{ n: 2 }]));
    await eventually(async () => expect((await worker.kith.queue.get(job.id))?.status).toBe("finished"));
    await expect(fetch(`http://127.0.0.1:${config.port}/health`)).rejects.toThrow();
  });

  it("all answers HTTP and works jobs", async () => {
    const all = await start("all");
    expect((await fetch(new URL("/health", all.url ?? ""))).status).toBe(200);
    await all.kith.queue.enqueue("probe", { n: 3 });
    await eventually(() => expect(worked.get("all")).toEqual([{ n: 3 }]));
  });

  it("a worker works the jobs a web process enqueued in the shared database", async () => {
    const web = await start("web");
    await start("worker", await freePort());
    const job = await web.kith.queue.enqueue("probe", { n: 4 });
    await eventually(() => expect(worked.get("worker")).toEqual([{ n: 4 }]), { timeoutMs: 10_000 });
    expect(worked.get("web")).toEqual([]);
    await eventually(async () => expect((await web.kith.queue.get(job.id))?.status).toBe("finished"));
  });

  it.runIf(redisDatabaseUrl() !== null)("with KITH_REDIS_URL, a worker works the jobs a web process put in Redis", async () => {
    const redisUrl = redisDatabaseUrl();
    const web = await start("web", config.port, redisUrl);
    await start("worker", await freePort(), redisUrl);
    expect(await web.kith.queue.backendInfo()).toMatchObject({ kind: "redis" });
    const job = await web.kith.queue.enqueue("probe", { n: 5 });
    await eventually(() => expect(worked.get("worker")).toEqual([{ n: 5 }]), { timeoutMs: 10_000 });
    expect(worked.get("web")).toEqual([]);
    await eventually(async () => expect((await web.kith.queue.get(job.id))?.status).toBe("finished"));
  });
});
