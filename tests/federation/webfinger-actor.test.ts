/**
 * Two Kith servers in separate processes, over real HTTPS with a test CA:
 * one finds an account of the other by WebFinger, fetches its actor with a
 * fetch signed by its instance actor (which the other verifies by fetching
 * the signer's key back over HTTPS), and reads its NodeInfo.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type Federation, startFederation } from "../support/federation-harness.js";

// Each case may start a script process from the sources; on a busy machine that alone takes seconds.
describeOnEngines("federation between two server processes", { timeout: 90_000 }, (engine) => {
  let net: Federation;
  beforeAll(async () => {
    net = await startFederation(2, { KITH_LOG_LEVEL: "debug" }, engine.name);
  }, 120_000);
  afterAll(async () => {
    await net?.stop();
  });

  it("serves WebFinger, the actor and NodeInfo over HTTPS", async () => {
    const [, b] = net.instances;
    if (!b) throw new Error("two instances expected");
    await b.createAccount("bob");
    const finger = await b.request("GET", `/.well-known/webfinger?resource=acct:bob@${b.host}`);
    expect(finger.status).toBe(200);
    expect(finger.body).toMatchObject({ subject: `acct:bob@${b.host}` });
    const actor = await b.request("GET", "/users/bob", { headers: { accept: "application/activity+json" } });
    expect(actor.status).toBe(200);
    expect(actor.body).toMatchObject({ id: `${b.origin}/users/bob`, type: "Person", inbox: `${b.origin}/users/bob/inbox` });
    const nodeinfo = await b.request("GET", "/nodeinfo/2.1");
    expect(nodeinfo.body).toMatchObject({ software: { name: "kith" }, usage: { users: { total: 1 } } });
  });

  it("resolves acct:bob@<B> from A: WebFinger over https, then a signed fetch B verifies", async () => {
    const [a, b] = net.instances;
    if (!a || !b) throw new Error("two instances expected");
    await b.createAccount("carol");
    const printed = await a.runScript("federation-lookup.ts", [`@carol@${b.host}`]);
    const object = JSON.parse(printed) as Record<string, unknown>;
    expect(object).toMatchObject({ id: `${b.origin}/users/carol`, type: "Person", preferredUsername: "carol" });
    // B checked the signature with A's instance actor key, fetched from A.
    const deadline = Date.now() + 10_000;
    while (!b.output().includes("Signed fetch of 'carol'") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(b.output()).toContain(`Signed fetch of 'carol' by '${a.origin}/users/instance.actor'`);
  });

  it("finds nothing for an unknown account", async () => {
    const [a, b] = net.instances;
    if (!a || !b) throw new Error("two instances expected");
    expect(JSON.parse(await a.runScript("federation-lookup.ts", [`@nobody@${b.host}`]))).toBeNull();
  });
});
