import { createHash } from "node:crypto";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestKith } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

/**
 * POSTs with made-up signatures naming keys on hosts a hostile peer
 * serves (any loopback address: 127.0.0.N are as many hosts): each key not
 * known yet would make the server fetch it, so they are counted per client
 * address and per key host, and the peer records how many fetches came.
 */
describeOnEngines("key fetches caused by inbox requests", (engine) => {
  let peer: Server;
  let port: number;
  const fetched: string[] = [];
  let kith: TestKith;

  beforeAll(async () => {
    peer = createServer((req, res) => {
      fetched.push(`${req.headers.host}${req.url}`);
      res.writeHead(404).end();
    });
    // Every loopback address, so that 127.0.0.N are distinct hosts of one peer.
    await new Promise<void>((resolve) => peer.listen(0, "0.0.0.0", resolve));
    port = (peer.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => peer.close(() => done())));
  beforeEach(async () => {
    fetched.length = 0;
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  /** A Follow by an actor of `host`, with a made-up draft-cavage signature by key `n` of that host. */
  function forged(host: string, n: number): Request {
    const origin = `http://${host}:${port}`;
    const body = JSON.stringify({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${origin}/follows/${n}`,
      type: "Follow",
      actor: `${origin}/users/u${n}`,
      object: "https://kith.test/users/alice",
    });
    const headers = {
      "content-type": "application/activity+json",
      date: new Date().toUTCString(),
      digest: `SHA-256=${createHash("sha256").update(body).digest("base64")}`,
      signature: `keyId="${origin}/keys/${n}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="${btoa(`made up ${n}`)}"`,
    };
    return new Request("https://kith.test/inbox", { method: "POST", headers, body });
  }

  it("lets one client address make 30 key fetches a minute, whatever hosts the keys are on", async () => {
    const statuses: number[] = [];
    for (let n = 1; n <= 50; n++) {
      const response = await kith.fetch(forged(`127.0.0.${n}`, n), { clientIp: "198.51.100.7" });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(fetched).toHaveLength(30);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    // Another client is not held back by this one.
    expect((await kith.fetch(forged("127.0.0.51", 51), { clientIp: "198.51.100.8" })).status).toBe(401);
  });

  it("lets requests from many addresses make 10 fetches a minute from a host no key of which verified", async () => {
    const statuses: number[] = [];
    for (let n = 1; n <= 20; n++) statuses.push((await kith.fetch(forged("127.0.0.1", n), { clientIp: `198.51.100.${n}` })).status);
    expect(fetched).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    kith.clock.advance(60_000);
    expect((await kith.fetch(forged("127.0.0.1", 21), { clientIp: "198.51.100.21" })).status).toBe(401);
  });
});
