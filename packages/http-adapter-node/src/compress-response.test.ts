import { gunzipSync } from "node:zlib";
import { brotliDecompressSync } from "node:zlib";
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { chooseCoding } from "./compress-response.js";
import { type NodeServer, startNodeServer } from "./node-server.js";

/** A GET with the Accept-Encoding given, read raw (fetch would decode it). */
function rawGet(url: string, acceptEncoding?: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("compressed answers", () => {
  let server: NodeServer | undefined;
  afterEach(() => server?.close());

  const big = JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ id: String(i), text: "the same words again" })) });

  async function serve(): Promise<string> {
    server = await startNodeServer({
      handler: async (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/big") return new Response(big, { headers: { "content-type": "application/json; charset=utf-8", etag: '"v1"' } });
        if (path === "/small") return Response.json({ ok: true });
        if (path === "/events") return new Response("data: x\n\n".repeat(500), { headers: { "content-type": "text/event-stream" } });
        if (path === "/image") return new Response(new Uint8Array(4096), { headers: { "content-type": "image/png" } });
        return new Response(null, { status: 404 });
      },
    });
    return server.url;
  }

  it("sends JSON above a small size in brotli or gzip, as the client accepts", async () => {
    const url = await serve();
    const br = await rawGet(`${url}/big`, "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    expect(br.headers.etag).toBe('W/"v1"');
    expect(Number(br.headers["content-length"])).toBe(br.body.byteLength);
    expect(br.body.byteLength).toBeLessThan(big.length / 5);
    expect(brotliDecompressSync(br.body).toString()).toBe(big);
    const gzip = await rawGet(`${url}/big`, "gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(big);
    const plain = await rawGet(`${url}/big`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(big);
  });

  it("leaves small answers, event streams and media as they are", async () => {
    const url = await serve();
    for (const path of ["/small", "/events", "/image"]) {
      const answer = await rawGet(`${url}${path}`, "br, gzip");
      expect(answer.headers["content-encoding"], path).toBeUndefined();
    }
  });

  it("reads Accept-Encoding with its weights", () => {
    expect(chooseCoding("gzip, deflate, br")).toBe("br");
    expect(chooseCoding("br;q=0.5, gzip")).toBe("gzip");
    expect(chooseCoding("br;q=0, gzip;q=0")).toBeNull();
    expect(chooseCoding("*")).toBe("br");
    expect(chooseCoding("identity")).toBeNull();
    expect(chooseCoding(undefined)).toBeNull();
  });
});
