import { createSafeFetch } from "@kith/core";
import { type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { federationSettled } from "../support/remote-activities.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * Deliveries to inboxes at non-public addresses. The remote server listens
 * on loopback and counts the POSTs it receives; its actors advertise their
 * inboxes and shared inbox there. Fedify sends deliveries with the global
 * fetch, so the delivery gate is what keeps them from loopback.
 *
 * The server under test reads the remote documents with a fetch that may
 * reach loopback (standing in for actor documents on a public host), while
 * its own configuration decides where deliveries may go.
 */
describeOnEngines("deliveries to inboxes at non-public addresses", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let serial = 0;
  let aliceToken = "";

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(() => {
    remote.received.length = 0;
  });
  afterEach(async () => {
    await kith.close();
  });

  async function start(allowPrivateAddress: boolean): Promise<void> {
    kith = await engine.testKith({
      config: { origin: "https://kith.test", allowPrivateAddress },
      federationFetch: createSafeFetch({ allowPrivateAddress: true }),
    });
    aliceToken = (await kith.createUser("alice")).token;
    await kith.start();
  }

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  /** mallory follows alice, alice posts, and alice follows mallory (queued and immediately). */
  async function exchange(): Promise<void> {
    const follow = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/follows/${++serial}`,
      type: "Follow",
      actor: mallory().id.href,
      object: "https://kith.test/users/alice",
    };
    const answer = await kith.fetch(await remote.signedPost("https://kith.test/users/alice/inbox", follow, mallory()), {
      clientIp: remote.host,
    });
    expect(answer.status).toBe(202);
    await eventually(async () => {
      const row = await kith.storage.db
        .selectFrom("follows")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(row.n)).toBe(1);
    });
    const posted = await kith.request("POST", "/api/v1/statuses", { token: aliceToken, json: { status: "hello", visibility: "public" } });
    expect(posted.status).toBe(200);
    expect(await kith.federation.sendFollow("alice", mallory().id.href)).not.toBeNull();
    expect(await kith.federation.sendFollow("alice", mallory().id.href, { immediate: true })).not.toBeNull();
    await federationSettled(kith);
  }

  const types = () => remote.received.map((request) => (request.body as { type?: string }).type).sort();

  it("sends nothing there when the server is not on a test network, and does not retry what it dropped", async () => {
    await start(false);
    await exchange();
    expect(remote.received).toEqual([]);
    expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, schedule: 0, failed: 0, dlq: 0 });
    // Nothing was attempted, so the domain is not marked as failing either.
    expect(await kith.services.federationMonitor.skipsDeliveryTo(remote.host)).toBe(false);
  });

  it("delivers there on a test network", async () => {
    await start(true);
    await exchange();
    await eventually(() => expect(types()).toEqual(["Accept", "Create", "Follow", "Follow"]));
    expect(remote.received.map((request) => request.path)).toContain("/inbox");
  });
});
