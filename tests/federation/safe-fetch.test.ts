import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { OutgoingFetchError, createSafeFetch } from "@kith/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNonPublicAddress } from "../../packages/core/src/platform/federation/safe-fetch.js";

/** A local server: /ok answers JSON, /hop/N redirects N more times, /to?u= redirects there, /big sends 5000 bytes, /slow never answers. */
function startServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    if (url.pathname === "/ok") return void res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const left = Number(hop[1]);
      return void res.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : "/ok" }).end();
    }
    if (url.pathname === "/to") return void res.writeHead(302, { location: url.searchParams.get("u") ?? "/" }).end();
    if (url.pathname === "/big") return void res.writeHead(200, { "content-length": "5000" }).end("x".repeat(5000));
    if (url.pathname === "/big-chunked") {
      res.writeHead(200);
      res.write("x".repeat(3000));
      return void res.end("y".repeat(3000));
    }
    if (url.pathname === "/headers")
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.headers));
    // /slow: never answers
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof OutgoingFetchError ? error.reason : `other: ${String(error)}`;
  }
  return "not refused";
}

describe("the safe outgoing fetch", () => {
  let server: Server;
  let base: string;
  let port: number;
  beforeAll(async () => {
    ({ server, port } = await startServer());
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("classifies addresses: loopback, private, link-local, unique-local and mapped ones are not public", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "ff02::1",
      // IPv4-mapped, whatever the IPv4 address inside, and 6to4, whatever the relayed address.
      "::ffff:8.8.8.8",
      "::ffff:808:808",
      "2002:7f00:1::1",
      "2002:808:808::1",
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "93.184.216.34", "2001:4860:4860::8888", "64:ff9b::808:808"]) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
  });

  it("refuses a loopback server by IP and by a name that resolves to it", async () => {
    const fetch = createSafeFetch();
    expect(await refusal(fetch(`${base}/ok`))).toBe("private_address");
    expect(await refusal(fetch(`http://localhost:${port}/ok`))).toBe("private_address");
    // The check is on what DNS returns, whatever the name looks like.
    const fooled = createSafeFetch({ lookup: async () => ["127.0.0.1"] });
    expect(await refusal(fooled(`http://public.example:${port}/ok`))).toBe("private_address");
  });

  it("reaches it when private addresses are allowed (test networks)", async () => {
    const fetch = createSafeFetch({ allowPrivateAddress: true });
    const response = await fetch(`${base}/ok`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.url).toBe(`${base}/ok`);
  });

  it("follows redirect chains up to the bound, reporting the final URL", async () => {
    const fetch = createSafeFetch({ allowPrivateAddress: true, maxRedirects: 5 });
    const response = await fetch(`${base}/hop/3`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base}/ok`);
    expect(await refusal(fetch(`${base}/hop/9`))).toBe("too_many_redirects");
    const manual = await fetch(`${base}/hop/1`, { redirect: "manual" });
    expect(manual.status).toBe(302);
  });

  it("checks every redirect hop: a trusted server cannot send the fetch to another private address", async () => {
    const fetch = createSafeFetch({ trustedAddresses: ["127.0.0.1"] });
    expect((await fetch(`${base}/ok`)).status).toBe(200);
    expect(await refusal(fetch(`${base}/to?u=${encodeURIComponent(`http://127.0.0.2:${port}/ok`)}`))).toBe("private_address");
    expect(await refusal(fetch(`${base}/to?u=${encodeURIComponent(`http://[::1]:${port}/ok`)}`))).toBe("private_address");
    expect(await refusal(fetch(`${base}/to?u=${encodeURIComponent("file:///etc/passwd")}`))).toBe("bad_url");
  });

  it("drops credentials when a redirect leaves the origin", async () => {
    const fetch = createSafeFetch({ allowPrivateAddress: true });
    const same = await fetch(`${base}/to?u=/headers`, { headers: { authorization: "Bearer secret" } });
    expect(((await same.json()) as Record<string, string>).authorization).toBe("Bearer secret");
    const other = await fetch(`${base}/to?u=${encodeURIComponent(`http://localhost:${port}/headers`)}`, {
      headers: { authorization: "Bearer secret", signature: "sig" },
    });
    const headers = (await other.json()) as Record<string, string>;
    expect(headers.authorization).toBeUndefined();
    expect(headers.signature).toBeUndefined();
  });

  it("bounds the body size, declared or not, and the time", async () => {
    const fetch = createSafeFetch({ allowPrivateAddress: true, maxBodyBytes: 4000, timeoutMs: 300 });
    expect(await refusal(fetch(`${base}/big`))).toBe("body_too_large");
    expect(await refusal(fetch(`${base}/big-chunked`))).toBe("body_too_large");
    expect(await refusal(fetch(`${base}/slow`))).toBe("timeout");
  });

  it("refuses URLs that are not http(s) or carry credentials", async () => {
    const fetch = createSafeFetch({ allowPrivateAddress: true });
    expect(await refusal(fetch("ftp://example.org/x"))).toBe("bad_url");
    expect(await refusal(fetch(`http://user:pw@127.0.0.1:${port}/ok`))).toBe("bad_url");
    expect(await refusal(fetch("not a url"))).toBe("bad_url");
  });
});
