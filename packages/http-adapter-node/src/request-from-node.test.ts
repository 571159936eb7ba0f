import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { NodeFetchHandler, NodeRequestInfo } from "./node-server.js";
import { requestFromNode } from "./request-from-node.js";
import { deferred, nodeRequest, rawExchange, useServers } from "./test-support.js";
import { writeResponse } from "./write-response.js";

const start = useServers();

/** What the core does with a body: read it all, map the adapter's coded error to 413. */
const readingHandler: NodeFetchHandler = async (request) => {
  try {
    const bytes = new Uint8Array(await request.arrayBuffer());
    return Response.json({ received: bytes.byteLength });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "request.body_too_large") return Response.json({ error: "The request body is too large", code }, { status: 413 });
    return Response.json({ error: String(error) }, { status: 400 });
  }
};

describe("request URL and forwarded headers", () => {
  function echo(): { handler: NodeFetchHandler; seen: Array<{ url: string; info: NodeRequestInfo }> } {
    const seen: Array<{ url: string; info: NodeRequestInfo }> = [];
    return {
      seen,
      handler: async (request, info) => {
        seen.push({ url: request.url, info });
        return new Response("ok");
      },
    };
  }
  const forwardedHeaders = { "x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https", "x-forwarded-host": "social.example" };

  it("builds the URL from Host and the path, and reports the socket address", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler });
    await nodeRequest(server.url, { path: "/api/v1/timelines/home?limit=2&x=%20y", headers: { host: "kith.test:8080" } });
    expect(seen[0]?.url).toBe("http://kith.test:8080/api/v1/timelines/home?limit=2&x=%20y");
    expect(seen[0]?.info.clientIp).toBe("127.0.0.1");
  });

  it("ignores X-Forwarded-* when the peer is not a trusted proxy", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler, trustedProxies: [] });
    await fetch(`${server.url}/path?q=1`, { headers: forwardedHeaders });
    expect(seen[0]?.url).toBe(`${server.url}/path?q=1`);
    expect(seen[0]?.info.clientIp).toBe("127.0.0.1");
  });

  it("honours X-Forwarded-* from a trusted proxy", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler, trustedProxies: ["127.0.0.1"] });
    await fetch(`${server.url}/path?q=1`, { headers: forwardedHeaders });
    expect(seen[0]?.url).toBe("https://social.example/path?q=1");
    expect(seen[0]?.info.clientIp).toBe("203.0.113.7");
  });

  it("skips trusted hops in X-Forwarded-For (loopback keyword)", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler, trustedProxies: ["loopback", "10.0.0.0/8"] });
    await fetch(server.url, { headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.7, 10.1.2.3" } });
    expect(seen[0]?.info.clientIp).toBe("203.0.113.7");
  });

  it("keeps a path that looks like a protocol-relative URL a path", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler });
    await nodeRequest(server.url, { path: "//evil.example/x", headers: { host: "kith.test" } });
    expect(seen[0]?.url).toBe("http://kith.test//evil.example/x");
  });

  it("answers 400 in the JSON error format to a Host that is no host", async () => {
    const { handler, seen } = echo();
    const server = await start({ handler });
    const response = await nodeRequest(server.url, { headers: { host: "kith.test/../admin" } });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: "request.malformed" });
    expect(seen).toHaveLength(0);
  });

  it("answers 405 to methods fetch refuses", async () => {
    const { handler } = echo();
    const server = await start({ handler });
    const response = await nodeRequest(server.url, { method: "TRACE" });
    expect(response.status).toBe(405);
  });
});

describe("request bodies", () => {
  const json = { "content-type": "application/json" };

  it("gives GET and HEAD no body, and a POST without one a null body", async () => {
    const bodies: Array<ReadableStream | null> = [];
    const server = await start({
      handler: async (request) => {
        bodies.push(request.body);
        return new Response("ok");
      },
    });
    await fetch(server.url);
    await fetch(server.url, { method: "HEAD" });
    await fetch(server.url, { method: "POST" });
    expect(bodies).toEqual([null, null, null]);
  });

  it("streams a body under the JSON limit", async () => {
    const server = await start({ handler: readingHandler, bodyLimits: { json: 1000 } });
    const response = await fetch(server.url, { method: "POST", headers: json, body: "x".repeat(1000) });
    expect(await response.json()).toEqual({ received: 1000 });
  });

  it("refuses a declared Content-Length over the JSON limit before reading, and closes the connection", async () => {
    const server = await start({ handler: readingHandler, bodyLimits: { json: 1000 } });
    const response = await fetch(server.url, { method: "POST", headers: json, body: "x".repeat(1001) });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({ error: "The request body is too large", code: "request.body_too_large" });
  });

  it("refuses a chunked body once the bytes read pass the JSON limit", async () => {
    const server = await start({ handler: readingHandler, bodyLimits: { json: 1000 } });
    const under = await nodeRequest(server.url, { method: "POST", headers: json, chunks: ["x".repeat(600), "x".repeat(400)] });
    expect(under.headers["transfer-encoding"]).toBeUndefined();
    expect(JSON.parse(under.body)).toEqual({ received: 1000 });
    const over = await nodeRequest(server.url, {
      method: "POST",
      headers: json,
      chunks: ["x".repeat(600), "x".repeat(600), "x".repeat(600)],
    });
    expect(over.status).toBe(413);
    expect(over.headers.connection).toBe("close");
  });

  it("refuses the real default JSON limit of 1 MB over fetch", async () => {
    const server = await start({ handler: readingHandler });
    const response = await fetch(server.url, { method: "POST", headers: json, body: new Uint8Array(1_000_001) });
    expect(response.status).toBe(413);
    const fine = await fetch(server.url, { method: "POST", headers: json, body: new Uint8Array(1_000_000) });
    expect(await fine.json()).toEqual({ received: 1_000_000 });
  });

  it("applies the JSON limit to +json, form-encoded and untyped bodies", async () => {
    const server = await start({ handler: readingHandler, bodyLimits: { json: 100, other: 10_000 } });
    for (const type of ["application/activity+json", "application/x-www-form-urlencoded", null]) {
      const headers: Record<string, string> = type ? { "content-type": type } : {};
      const response = await nodeRequest(server.url, { method: "POST", headers, chunks: ["x".repeat(101)] });
      expect(response.status, String(type)).toBe(413);
    }
  });

  it("gives multipart and other types the larger limit", async () => {
    const server = await start({ handler: readingHandler, bodyLimits: { json: 100, other: 10_000 } });
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(5_000)]), "a.bin");
    const multipart = await fetch(server.url, { method: "POST", body: form });
    expect(multipart.status).toBe(200);
    const binary = await fetch(server.url, { method: "POST", headers: { "content-type": "image/png" }, body: new Uint8Array(10_000) });
    expect(await binary.json()).toEqual({ received: 10_000 });
    const tooBig = await fetch(server.url, { method: "POST", headers: { "content-type": "image/png" }, body: new Uint8Array(10_001) });
    expect(tooBig.status).toBe(413);
  });

  it("keeps the connection when the body was read, and when an unread body fully arrived", async () => {
    const pipelined = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    const reading = await start({ handler: readingHandler });
    const read = await rawExchange(reading.url, pipelined);
    // Both requests answered on the one connection, the first one kept alive.
    expect(read.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    expect(read).toMatch(/^HTTP\/1\.1 200 OK\r\n(?:[^\r]+\r\n)*Connection: keep-alive\r\n/i);
    const ignoring = await start({ handler: async () => new Response("ignored") });
    const unread = await rawExchange(ignoring.url, pipelined);
    expect(unread.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });

  it("closes the connection rather than read an unread body of unknown or excessive size", async () => {
    const server = await start({ handler: async () => new Response("ignored"), bodyLimits: { json: 1000 } });
    // Over the limit and still arriving: part of the declared body is sent, the rest would follow on the connection.
    const large = await rawExchange(server.url, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n${"x".repeat(2000)}`);
    expect(large).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(large).toMatch(/\r\nconnection: close\r\n/i);
    const chunked = await rawExchange(server.url, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    expect(chunked).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(chunked).toMatch(/\r\nconnection: close\r\n/i);
  });

  it("aborts the Request's signal when the client disconnects", async () => {
    const entered = deferred();
    const aborted = deferred<boolean>();
    const server = await start({
      handler: (request) =>
        new Promise<Response>((resolve) => {
          request.signal.addEventListener("abort", () => {
            aborted.resolve(request.signal.aborted);
            resolve(new Response("too late"));
          });
          entered.resolve();
        }),
    });
    const client = new AbortController();
    const pending = fetch(server.url, { signal: client.signal }).catch((error: unknown) => error);
    await entered.promise;
    client.abort();
    expect(await aborted.promise).toBe(true);
    expect(await pending).toBeInstanceOf(Error);
  });

  it("errors the body stream when the client disconnects mid-upload", async () => {
    const outcome = deferred<string>();
    const server = await start({
      handler: async (request) => {
        try {
          await request.arrayBuffer();
          outcome.resolve("read");
        } catch (error) {
          outcome.resolve(request.signal.aborted ? "aborted" : `failed: ${String(error)}`);
        }
        return new Response("done");
      },
    });
    const { port } = new URL(server.url);
    const { connect } = await import("node:net");
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a part");
      setTimeout(() => socket.destroy(), 20);
    });
    expect(await outcome.promise).toBe("aborted");
  });
});

describe("requestFromNode in a host application's own server", () => {
  it("makes the given signal the Request's own, not one of the Request's making that follows it", async () => {
    const seen: boolean[] = [];
    const server = createServer((req, res) => {
      const controller = new AbortController();
      const { request } = requestFromNode(req, { signal: controller.signal });
      seen.push(request.signal === controller.signal, request.signal.aborted);
      controller.abort();
      seen.push(request.signal.aborted);
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const response = await nodeRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { method: "GET" });
      expect(response.status).toBe(200);
      expect(seen).toEqual([true, false, true]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("converts requests and closes connections left with unread bytes", async () => {
    const server = createServer((req, res) => {
      const controller = new AbortController();
      const { request, clientIp } = requestFromNode(req, { bodyLimits: { json: 10 }, signal: controller.signal });
      void readingHandler(request, { clientIp }).then((response) => writeResponse(response, res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const small = await nodeRequest(url, { method: "POST", chunks: ["{}"] });
      expect(JSON.parse(small.body)).toEqual({ received: 2 });
      const large = await nodeRequest(url, { method: "POST", chunks: ["x".repeat(11)] });
      expect(large.status).toBe(413);
      expect(large.headers.connection).toBe("close");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
