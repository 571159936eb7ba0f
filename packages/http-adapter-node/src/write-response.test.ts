import { Agent, request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { deferred, nodeRequest, rawExchange, useServers, within } from "./test-support.js";

const start = useServers();
const encoder = new TextEncoder();
/** Where Kith's BufferedResponse holds a body already in memory (packages/core/src/platform/http/buffered-response.ts). */
const BUFFERED_BODY = Symbol.for("kith.response.bufferedBody");

describe("writeResponse", () => {
  it("writes status, headers and each Set-Cookie on its own line", async () => {
    const server = await start({
      handler: async () => {
        const headers = new Headers({ "content-type": "application/json", "x-kith": "1" });
        headers.append("set-cookie", "a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT");
        headers.append("set-cookie", "b=2; HttpOnly");
        return new Response('{"ok":true}', { status: 201, statusText: "Made", headers });
      },
    });
    const response = await nodeRequest(server.url);
    expect(response.status).toBe(201);
    expect(response.headers["x-kith"]).toBe("1");
    expect(response.headers["set-cookie"]).toEqual(["a=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "b=2; HttpOnly"]);
    // A body available at once goes out whole, with its length.
    expect(response.headers["content-length"]).toBe("11");
    expect(response.body).toBe('{"ok":true}');
  });

  it("sends a page-sized body available at once in one piece with its length, not chunked", async () => {
    const page = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: String(i), content: "x".repeat(40) })));
    expect(page.length).toBeGreaterThan(64 * 1024);
    const server = await start({ handler: async () => new Response(page, { headers: { "content-type": "application/json" } }) });
    const response = await nodeRequest(server.url);
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(page)));
    expect(response.headers["transfer-encoding"]).toBeUndefined();
    expect(response.body).toBe(page);
  });

  it("writes a body Kith's handler holds in memory as it is, in one piece with its length, without reading the stream", async () => {
    const page = JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: String(i), content: "caf\u00e9 ".repeat(8) })));
    let answered: Response | undefined;
    const server = await start({
      handler: async () => {
        const headers = new Headers({ "content-type": "application/json" });
        headers.append("set-cookie", "a=1");
        headers.append("set-cookie", "b=2");
        answered = Object.assign(new Response("the stream", { headers }), { [BUFFERED_BODY]: page });
        return answered;
      },
    });
    const response = await nodeRequest(server.url);
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(page)));
    expect(response.headers["transfer-encoding"]).toBeUndefined();
    expect(response.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(response.body).toBe(page);
    expect(answered?.bodyUsed).toBe(false);
    expect(answered?.body?.locked).toBe(false);
  });

  it("writes buffered bytes, sends no buffered body for HEAD, and streams when the buffered value is neither", async () => {
    const server = await start({
      handler: async (request) => {
        const kind = new URL(request.url).pathname;
        const buffered = kind === "/bytes" ? encoder.encode("bytes") : kind === "/other" ? { text: "no" } : "text";
        return Object.assign(new Response("the stream"), { [BUFFERED_BODY]: buffered });
      },
    });
    expect((await nodeRequest(server.url, { path: "/bytes" })).body).toBe("bytes");
    expect((await nodeRequest(server.url, { path: "/other" })).body).toBe("the stream");
    const raw = await rawExchange(server.url, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
  });

  it("writes a body of pieces in one piece with its length, and the shorter body after it on the same connection exactly", async () => {
    const long = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: String(i), content: "caf\u00e9 \u{1f600}" })));
    const short = '[{"id":"short","content":"\u00fc"}]';
    const piecesOf = (text: string) => [text.slice(0, 12), encoder.encode(text.slice(12, -2)), text.slice(-2)];
    const server = await start({
      handler: async (request) => {
        const path = new URL(request.url).pathname;
        const buffered = path === "/long" ? piecesOf(long) : path === "/not-pieces" ? [1, 2] : piecesOf(short);
        return Object.assign(new Response("the stream"), { [BUFFERED_BODY]: buffered });
      },
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const [path, body] of [
        ["/long", long],
        ["/short", short],
        ["/long", long],
      ] as const) {
        const response = await nodeRequest(server.url, { path, agent });
        expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
        expect(response.headers["transfer-encoding"]).toBeUndefined();
        expect(response.body).toBe(body);
      }
      expect((await nodeRequest(server.url, { path: "/not-pieces", agent })).body).toBe("the stream");
    } finally {
      agent.destroy();
    }
    const raw = await rawExchange(server.url, "HEAD /long HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
  });

  it("sends no body for HEAD, and does not read the handler's", async () => {
    let cancelled = false;
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(encoder.encode("should not be sent"));
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    });
    const raw = await rawExchange(server.url, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.endsWith("\r\n\r\n")).toBe(true);
    expect(raw).not.toContain("should not be sent");
    expect(cancelled).toBe(true);
  });

  it("drops hop-by-hop headers a proxied Response may carry", async () => {
    const server = await start({
      handler: async () =>
        new Response("hi", { headers: { "transfer-encoding": "chunked", connection: "upgrade", "keep-alive": "timeout=99" } }),
    });
    const raw = await rawExchange(server.url, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(raw).not.toMatch(/timeout=99|upgrade|transfer-encoding/i);
    expect(raw.endsWith("\r\n\r\nhi")).toBe(true);
  });

  it("streams: headers and the first chunk arrive before the stream ends", async () => {
    const release = deferred();
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(encoder.encode("data: first\n\n"));
              await release.promise;
              controller.enqueue(encoder.encode("data: second\n\n"));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    const response = await fetch(server.url);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await within(reader.read());
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    release.resolve();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: second\n\n");
  });

  it("flushes headers at once when the body has nothing yet (server-sent events)", async () => {
    const release = deferred();
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              await release.promise;
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    const response = await within(fetch(server.url));
    expect(response.status).toBe(200);
    release.resolve();
    expect(await response.text()).toBe("");
  });

  it("stops reading the body when the client goes away", async () => {
    const cancelled = deferred<unknown>();
    const started = deferred();
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(encoder.encode("event: hello\n\n"));
              started.resolve();
            },
            cancel(reason) {
              cancelled.resolve(reason);
            },
          }),
        ),
    });
    const client = new AbortController();
    const response = await fetch(server.url, { signal: client.signal });
    await started.promise;
    await (response.body as ReadableStream<Uint8Array>).getReader().read();
    client.abort();
    await expect(within(cancelled.promise)).resolves.toBeUndefined();
  });

  it("respects backpressure: a client that does not read holds the producer back", async () => {
    const chunk = new Uint8Array(64 * 1024);
    const total = 2048; // 128 MiB if the producer were not held back
    let produced = 0;
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>(
            {
              pull(controller) {
                if (produced === total) return controller.close();
                produced++;
                controller.enqueue(chunk);
              },
            },
            { highWaterMark: 0 },
          ),
        ),
    });
    const { hostname, port } = new URL(server.url);
    const paused = deferred<() => void>();
    const req = httpRequest({ hostname, port, path: "/", agent: false }, (res) => {
      res.pause();
      paused.resolve(() => res.destroy());
    });
    req.end();
    const destroy = await paused.promise;
    // Let socket buffers fill; with backpressure the producer stalls a few MiB in.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const stalledAt = produced;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(produced).toBe(stalledAt);
    expect(produced).toBeLessThan(total / 4);
    destroy();
  });

  it("destroys the response when the body fails half-way, so it does not look complete", async () => {
    const errors: unknown[] = [];
    const server = await start({
      onError: (error) => errors.push(error),
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(encoder.encode("partial"));
              await new Promise((resolve) => setTimeout(resolve, 10));
              controller.error(new Error("disk gone"));
            },
          }),
        ),
    });
    const response = await fetch(server.url);
    await expect(response.text()).rejects.toThrow();
    expect(errors).toEqual([expect.objectContaining({ message: "disk gone" })]);
  });

  it("answers 500 when the body fails before anything was sent", async () => {
    const server = await start({
      handler: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.error(new Error("secret detail"));
            },
          }),
        ),
    });
    const response = await fetch(server.url);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"Something went wrong on our side","code":"server.internal"}');
  });
});
