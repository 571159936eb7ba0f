import type { AccessType } from "@kith/core";
import { type ReceivedRequest, type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { giveGrants } from "../support/roles.js";
import { federationSettled } from "../support/remote-activities.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * A post to followers on several servers goes out as one batch job: each
 * inbox passes the delivery gate, the successes are recorded in one write,
 * and each delivery that failed becomes a job of its own, delivered and
 * retried as a single delivery is. The servers are loopback servers; the
 * third one's accounts have their inboxes under the name `localhost`, so
 * that a rule on that domain (rules ignore ports) lets the post be queued
 * for them (by their ids) and the gate drop the delivery (by the inbox).
 */
describeOnEngines("batched deliveries", (engine) => {
  const HOUR = 3_600_000;
  const servers: RemoteServer[] = [];
  let first: RemoteServer;
  let second: RemoteServer;
  let third: RemoteServer;
  let kith: TestKith;
  let alice: { token: string; account: { id: string } };
  let serial = 0;

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) servers.push(await startRemoteServer(["reader"]));
    [first, second, third] = servers as [RemoteServer, RemoteServer, RemoteServer];
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  beforeEach(async () => {
    for (const server of servers) {
      server.received.length = 0;
      server.inboxStatus = () => 202;
    }
    // Batches are what these tests are about: on even when a run turns the speed-ups off (KITH_OPTIMISATIONS_OFF).
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true, optimisations: { batchDelivery: true } } });
    alice = await kith.createUser("alice");
    await kith.start();
    await followedFrom(first.origin);
    await followedFrom(second.origin);
    await followedFrom(third.origin, third.origin.replace("127.0.0.1", "localhost"));
  });
  afterEach(async () => {
    await kith.close();
  });

  /** Accounts of the server at `origin` follow alice: two sharing an inbox at `inboxOrigin`, or these with personal ones only. */
  async function followedFrom(origin: string, inboxOrigin = origin, personal: readonly string[] = []): Promise<void> {
    const host = new URL(origin).host;
    const now = kith.clock.now().toISOString();
    for (const username of personal.length > 0 ? personal : ["reader", "other"]) {
      const id = kith.ids.next("user");
      const uri = `${origin}/users/${username}`;
      await kith.storage.db
        .insertInto("accounts")
        .values({
          id,
          username,
          domain: host,
          acct_key: `${username}@${host}`,
          display_name: "",
          note: "",
          actor_type: "Person",
          locked: false,
          discoverable: false,
          uri,
          url: null,
          inbox_url: `${inboxOrigin}/users/${username}/inbox`,
          shared_inbox_url: personal.length > 0 ? null : `${inboxOrigin}/inbox`,
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
      await kith.storage.db
        .insertInto("follows")
        .values({
          id: kith.ids.next("follow"),
          account_id: id,
          target_account_id: alice.account.id,
          follower_local: false,
          uri: null,
          languages: null,
          created_at: now,
          updated_at: now,
        } as never)
        .execute();
    }
  }

  async function postPublicly(): Promise<string> {
    const response = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: `batched ${++serial}`, visibility: "public" },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { uri: string }).uri;
  }

  const creates = (server: RemoteServer) => server.received.filter((request) => (request.body as { type?: string }).type === "Create");

  async function deliveriesByDomain(): Promise<Record<string, { succeeded: number; failed: number }>> {
    const staff = await kith.createUser(`staff${++serial}`);
    const access: AccessType[] = ["Read"];
    await giveGrants(kith, staff.account.id, [{ resource: "Federation", access, scope: "global" }]);
    const response = await kith.request("GET", "/api/v1/admin/federation/deliveries", { token: staff.token });
    expect(response.status).toBe(200);
    const rows = (await response.json()) as { domain: string; succeeded: number; failed: number }[];
    return Object.fromEntries(rows.map((row) => [row.domain, { succeeded: row.succeeded, failed: row.failed }]));
  }

  /** Whether a received request's signature verifies, alice's key fetched from Kith. */
  async function verified(request: ReceivedRequest | undefined, server: RemoteServer): Promise<boolean> {
    if (!request) return false;
    return server.signatureVerifies(request, async (url) => {
      const response = await kith.fetch(new Request(url, { headers: { accept: "application/activity+json" } }));
      return response.json();
    });
  }

  it("reaches each server once at its shared inbox, signed, drops a suspended domain's, and records the successes", async () => {
    await kith.services.domainPolicy.createBlock({ domain: "localhost", severity: "SUSPEND" });
    const uri = await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(1));
    await eventually(() => expect(creates(second)).toHaveLength(1));
    await federationSettled(kith);
    const [delivery] = creates(first);
    expect(delivery?.path).toBe("/inbox");
    const activity = delivery?.body as { object?: { id?: string }; proof?: unknown } | undefined;
    expect(activity?.object?.id).toBe(uri);
    expect(await verified(delivery, first)).toBe(true);
    // The FEP-8b32 proof Fedify attached travels with the activity.
    expect(activity?.proof).toBeDefined();
    expect(third.received).toEqual([]);
    expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, schedule: 0, failed: 0, dlq: 0 });
    // One job for the three inboxes, which sent what the gate let through itself.
    const jobs = await kith.queue.list({ queue: "federation", status: "finished", limit: 10 });
    expect(jobs.map((job) => (job.payload as { type?: string; inboxes?: unknown[] }).inboxes?.length)).toEqual([3]);
    // The sender's private key is not in the stored job: it was read from alice's keys to sign.
    expect((jobs[0]?.payload as { message?: { keys?: unknown } } | undefined)?.message?.keys).toEqual([
      { keyId: "https://kith.test/users/alice#main-key" },
      { keyId: "https://kith.test/users/alice#key-2" },
    ]);
    expect(JSON.stringify(jobs[0]?.payload)).not.toMatch(/"d":/);
    expect(delivery?.headers["user-agent"]).toMatch(/^Kith\//);
    const domains = await deliveriesByDomain();
    expect(domains[first.host]).toEqual({ succeeded: 1, failed: 0 });
    expect(domains[second.host]).toEqual({ succeeded: 1, failed: 0 });
    expect(Object.keys(domains).some((domain) => domain.startsWith("localhost"))).toBe(false);
  });

  it("queues a post to many inboxes as batch jobs from the start, without a fan-out job", async () => {
    const names = ["p1", "p2", "p3", "p4", "p5"];
    await followedFrom(first.origin, first.origin, names);
    await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(6));
    await federationSettled(kith);
    expect(
      creates(first)
        .map((request) => request.path)
        .sort(),
    ).toEqual(["/inbox", ...names.map((name) => `/users/${name}/inbox`)]);
    const jobs = await kith.queue.list({ queue: "federation", limit: 10 });
    expect(jobs.map((job) => [(job.payload as { type?: string }).type, job.status])).toEqual([["kith.outbox-batch", "finished"]]);
  });

  it("skips an unreachable domain's inbox in a batch, and records nothing for it", async () => {
    const inbox = new URL(`${second.origin}/inbox`);
    const days = kith.config.unreachableAfterDays;
    for (let day = 0; day < days; day++) {
      await kith.services.federationMonitor.recordDelivery(inbox, "failure");
      kith.clock.advance(24 * HOUR);
    }
    await kith.services.federationMonitor.recordDelivery(inbox, "failure");
    await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(1));
    await eventually(() => expect(creates(third)).toHaveLength(1));
    await federationSettled(kith);
    expect(second.received).toEqual([]);
    expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, schedule: 0, failed: 0 });
    expect((await deliveriesByDomain())[second.host]).toEqual({ succeeded: 0, failed: days + 1 });
  });

  it("hands a failed delivery to a job of its own, retried with backoff until it is accepted, while the others are done", async () => {
    let down = true;
    second.inboxStatus = () => (down ? 500 : 202);
    await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(1));
    await eventually(() => expect(creates(third)).toHaveLength(1));
    await eventually(async () => expect((await kith.queue.list({ queue: "federation", status: "retries", limit: 10 })).length).toBe(1));
    await federationSettled(kith);
    const [retry] = await kith.queue.list({ queue: "federation", status: "retries", limit: 10 });
    expect(retry).toMatchObject({ tries: 1, payload: { type: "outbox", inbox: `${second.origin}/inbox`, attempt: 0 } });
    expect(JSON.stringify(retry?.payload)).not.toMatch(/"d":/);
    expect(Date.parse(retry?.runAt ?? "")).toBeGreaterThan(kith.clock.now().getTime());
    // The batch's attempt, then the single delivery's, which knocks with both signature forms.
    expect(creates(second).length).toBeLessThanOrEqual(3);
    expect(creates(first)).toHaveLength(1);
    expect(await deliveriesByDomain()).toMatchObject({
      [first.host]: { succeeded: 1, failed: 0 },
      [second.host]: { succeeded: 0, failed: 1 },
    });

    down = false;
    const before = creates(second).length;
    kith.clock.advance(HOUR);
    await eventually(() => expect(creates(second)).toHaveLength(before + 1));
    await federationSettled(kith);
    expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, failed: 0, dlq: 0 });
    expect(creates(first)).toHaveLength(1);
    expect((await deliveriesByDomain())[second.host]).toEqual({ succeeded: 1, failed: 1 });
  });

  it("does not retry a delivery of the batch answered with 410", async () => {
    second.inboxStatus = () => 410;
    await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(1));
    await eventually(async () => expect((await deliveriesByDomain())[second.host]?.failed).toBe(1));
    await federationSettled(kith);
    const sent = creates(second).length;
    kith.clock.advance(24 * HOUR);
    await federationSettled(kith);
    expect(creates(second)).toHaveLength(sent);
    expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, schedule: 0, failed: 0 });
  });

  it("signs in the form a server accepted before", async () => {
    const { kv } = await kith.federation.load();
    await kv.set(["_fedify", "httpMessageSignaturesSpec", first.origin], "draft-cavage-http-signatures-12");
    await postPublicly();
    await eventually(() => expect(creates(first)).toHaveLength(1));
    await eventually(() => expect(creates(second)).toHaveLength(1));
    const cavage = creates(first)[0];
    expect(cavage?.headers.signature).toContain('algorithm="rsa-sha256"');
    expect(cavage?.headers["signature-input"]).toBeUndefined();
    expect(await verified(cavage, first)).toBe(true);
    // A server not known yet is knocked at in RFC 9421 first, and remembered after it accepted.
    const rfc9421 = creates(second)[0];
    expect(rfc9421?.headers["signature-input"]).toContain("sig1=");
    expect(await verified(rfc9421, second)).toBe(true);
    await federationSettled(kith);
    expect(await kv.get(["_fedify", "httpMessageSignaturesSpec", second.origin])).toBe("rfc9421");
  });
});
