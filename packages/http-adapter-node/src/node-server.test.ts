import { request as httpRequest } from "node:http";
import { constants } from "node:os";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeOnSignals } from "./close-on-signals.js";
import { startNodeServer } from "./node-server.js";
import { deferred, nodeRequest, useServers, within } from "./test-support.js";

const start = useServers();

describe("startNodeServer", () => {
  it("listens on 127.0.0.1 and a free port by default, with sensible timeouts", async () => {
    const server = await start({ handler: async () => new Response("hello") });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(server.url)).text()).toBe("hello");
    expect(server.server.keepAliveTimeout).toBe(5_000);
    expect(server.server.requestTimeout).toBe(300_000);
    expect(server.server.headersTimeout).toBeLessThanOrEqual(server.server.requestTimeout);
  });

  it("brackets an IPv6 address in its URL", async () => {
    const server = await start({ handler: async (_request, info) => new Response(info.clientIp ?? "none"), host: "::1" }).catch(() => null);
    // Hosts without IPv6 loopback cannot run this one.
    if (!server) return expect(server).toBeNull();
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(await (await fetch(server.url)).text()).toBe("::1");
  });

  it("refuses to start with an unreadable trusted proxy", async () => {
    await expect(start({ handler: async () => new Response(), trustedProxies: ["10.0.0.0/99"] })).rejects.toThrow(TypeError);
  });

  it("answers 500 in the JSON error format, without the error, when the handler throws", async () => {
    const onError = vi.fn();
    const server = await start({
      onError,
      handler: async () => {
        throw new Error("password=hunter2 at /srv/kith/secret.ts:12");
      },
    });
    const response = await fetch(`${server.url}/api/v1/statuses?access_token=abc`, { method: "POST", body: "{}" });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = await response.text();
    expect(body).toBe('{"error":"Something went wrong on our side","code":"server.internal"}');
    expect(onError).toHaveBeenCalledOnce();
    // The context names the route but not the query, where tokens travel.
    expect(onError.mock.calls[0]?.[1]).toEqual({ method: "POST", path: "/api/v1/statuses" });
  });

  it("logs a throwing handler to stderr by default, without the query", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const server = await startNodeServer({ handler: () => Promise.reject(new Error("boom")) });
      try {
        expect((await fetch(`${server.url}/x?access_token=secret`)).status).toBe(500);
      } finally {
        await server.close();
      }
      const logged = spy.mock.calls.map((call) => call.join(" ")).join("\n");
      expect(logged).toContain("GET /x failed: Error: boom");
      expect(logged).not.toContain("secret");
    } finally {
      spy.mockRestore();
    }
  });
});

describe("upgrades", () => {
  it("hands Upgrade requests to onUpgrade", async () => {
    const seen = deferred<{ url: string | undefined; upgrade: string | undefined; head: number }>();
    const server = await start({
      handler: async () => new Response("not this"),
      onUpgrade: (request, socket, head) => {
        seen.resolve({ url: request.url, upgrade: request.headers.upgrade, head: head.byteLength });
        socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
        socket.end("hi");
      },
    });
    const { hostname, port } = new URL(server.url);
    const upgraded = deferred<string>();
    const req = httpRequest({
      hostname,
      port,
      path: "/api/v1/streaming?stream=public",
      headers: { connection: "Upgrade", upgrade: "websocket" },
      agent: false,
    });
    req.on("upgrade", (res, socket: Duplex, head: Buffer) => {
      let text = head.toString();
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.on("end", () => upgraded.resolve(`${res.statusCode} ${text}`));
    });
    req.end();
    expect(await within(seen.promise)).toEqual({ url: "/api/v1/streaming?stream=public", upgrade: "websocket", head: 0 });
    expect(await within(upgraded.promise)).toBe("101 hi");
  });

  it("refuses upgrades with 400 without a hook", async () => {
    const server = await start({ handler: async () => new Response("not this") });
    const response = await nodeRequest(server.url, { headers: { connection: "Upgrade", upgrade: "websocket" } });
    expect(response.status).toBe(400);
  });
});

describe("graceful shutdown", () => {
  it("refuses new connections, lets the in-flight request finish, then runs onShutdown", async () => {
    const events: string[] = [];
    const entered = deferred();
    const release = deferred();
    const server = await startNodeServer({
      handler: async (request) => {
        if (new URL(request.url).pathname === "/slow") {
          entered.resolve();
          await release.promise;
          events.push("response");
          return new Response("slow and complete");
        }
        return new Response("quick");
      },
      onShutdown: async () => {
        events.push("onShutdown");
      },
    });
    // An earlier request leaves an idle keep-alive connection in fetch's pool: it must not hold the shutdown.
    expect(await (await fetch(server.url)).text()).toBe("quick");
    const slow = fetch(`${server.url}/slow`).then((response) => response.text());
    await entered.promise;

    const started = performance.now();
    const closed = server.close();
    expect(server.close()).toBe(closed);
    await expect(fetch(server.url)).rejects.toThrow();
    release.resolve();
    expect(await slow).toBe("slow and complete");
    await closed;
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(events).toEqual(["response", "onShutdown"]);
    expect(server.server.listening).toBe(false);
  });

  it("cuts requests still running at the deadline, aborting their signals", async () => {
    const entered = deferred();
    const aborted = deferred();
    const server = await startNodeServer({
      shutdownTimeoutMs: 50,
      handler: (request) =>
        new Promise<Response>(() => {
          request.signal.addEventListener("abort", () => aborted.resolve());
          entered.resolve();
        }),
    });
    const pending = fetch(server.url).catch((error: unknown) => error);
    await entered.promise;
    await within(server.close());
    await within(aborted.promise);
    expect(await pending).toBeInstanceOf(Error);
  });

  it("closes upgraded sockets left open after onShutdown", async () => {
    const taken = deferred<Duplex>();
    const server = await startNodeServer({
      handler: async () => new Response(),
      onUpgrade: (_request, socket) => {
        socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n");
        taken.resolve(socket);
      },
    });
    const { hostname, port } = new URL(server.url);
    const req = httpRequest({ hostname, port, headers: { connection: "Upgrade", upgrade: "test" }, agent: false });
    req.end();
    const socket = await within(taken.promise);
    await within(server.close());
    expect(socket.destroyed).toBe(true);
  });
});

describe("closeOnSignals", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("closes once on a signal, exits with 0, and can be removed", async () => {
    const exited = deferred<number | string | null | undefined>();
    vi.spyOn(process, "exit").mockImplementation(((code?: number | string | null) => {
      exited.resolve(code);
    }) as typeof process.exit);
    const close = vi.fn(async () => {});
    const before = process.listenerCount("SIGUSR2");
    const remove = closeOnSignals({ server: null as never, url: "", close }, ["SIGUSR2"]);
    expect(process.listenerCount("SIGUSR2")).toBe(before + 1);
    process.emit("SIGUSR2", "SIGUSR2");
    expect(await within(exited.promise)).toBe(0);
    expect(close).toHaveBeenCalledOnce();
    remove();
    expect(process.listenerCount("SIGUSR2")).toBe(before);
  });

  it("exits at once on a second signal during a slow shutdown", async () => {
    const codes: Array<number | string | null | undefined> = [];
    vi.spyOn(process, "exit").mockImplementation(((code?: number | string | null) => {
      codes.push(code);
    }) as typeof process.exit);
    const close = vi.fn(() => new Promise<void>(() => {}));
    const remove = closeOnSignals({ server: null as never, url: "", close }, ["SIGUSR2"]);
    try {
      process.emit("SIGUSR2", "SIGUSR2");
      process.emit("SIGUSR2", "SIGUSR2");
      expect(close).toHaveBeenCalledOnce();
      expect(codes).toEqual([128 + constants.signals.SIGUSR2]);
    } finally {
      remove();
    }
  });
});
