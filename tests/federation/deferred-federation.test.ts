import { type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { REPLIES_QUEUE } from "../../packages/core/src/platform/federation/queue-names.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";

/**
 * Fedify is loaded and the Federation built on first use (a federation
 * request, a job of its queues, a domain event), not when Kith starts; what
 * it does then is what it did when built at start.
 */
describeOnEngines("the federation, built on first use", (engine) => {
  let remote: RemoteServer;
  let database: EngineDatabase;
  const open: TestKith[] = [];

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.received.length = 0;
    database = await engine.database();
  });
  afterEach(async () => {
    for (const kith of open.splice(0)) await kith.close();
    await database.drop();
  });

  /** A Kith on the test's database, so a second one can open what the first wrote. */
  async function kithOnDatabase(): Promise<TestKith> {
    const kith = await database.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    open.push(kith);
    return kith;
  }

  async function close(kith: TestKith): Promise<void> {
    open.splice(open.indexOf(kith), 1);
    await kith.close();
  }

  it("is not built to start, answer the API and the health check, or an unknown path", async () => {
    const kith = await kithOnDatabase();
    const { token } = await kith.createUser("alice");
    await kith.start();
    expect((await kith.request("GET", "/health")).status).toBe(200);
    expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token })).status).toBe(200);
    expect((await kith.request("GET", "/no/such/path")).status).toBe(404);
    expect(kith.federation.loaded).toBe(false);
  });

  it("builds one Federation for first uses that come at once, and answers each", async () => {
    const kith = await kithOnDatabase();
    await kith.createUser("alice");
    const first = kith.federation.load();
    const second = kith.federation.load();
    const webfinger = () => kith.request("GET", "/.well-known/webfinger?resource=acct:alice@kith.test");
    const [a, b] = await Promise.all([webfinger(), webfinger()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await a.json()).toMatchObject({ subject: "acct:alice@kith.test" });
    expect(await first).toBe(await second);
    expect(await kith.federation.load()).toBe(await first);
    expect(kith.federation.loaded).toBe(true);
  });

  it("builds it for the domain event that needs it: a post before any federation use reaches the remote follower", async () => {
    const before = await kithOnDatabase();
    const { token } = await before.createUser("alice");
    await before.start();
    const actor = remote.actors.mallory ?? expect.unreachable("mallory");
    const follow = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${actor.id.href}/follows/1`,
      type: "Follow",
      actor: actor.id.href,
      object: "https://kith.test/users/alice",
    };
    const answer = await before.fetch(await remote.signedPost("https://kith.test/users/alice/inbox", follow, actor), { clientIp: remote.host });
    expect(answer.status).toBe(202);
    await eventually(async () => {
      const row = await before.storage.db.selectFrom("follows").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
      expect(Number(row.n)).toBe(1);
    });
    // The Accept is delivered before this process ends, so no job of it is left for the next.
    await eventually(() => expect(remote.received.some((request) => (request.body as { type?: string }).type === "Accept")).toBe(true));
    await eventually(async () => expect(await before.queue.counts("federation")).toMatchObject({ submitted: 0, active: 0, retries: 0 }));
    await close(before);
    remote.received.length = 0;

    // A new process on the same database: alice's token still works, and nothing has loaded Fedify yet.
    const kith = await kithOnDatabase();
    await kith.start();
    expect(kith.federation.loaded).toBe(false);
    const posted = await kith.request("POST", "/api/v1/statuses", { token, json: { status: "hello, followers", visibility: "public" } });
    expect(posted.status).toBe(200);
    const creates = () => remote.received.filter((request) => (request.body as { type?: string }).type === "Create");
    await eventually(() => expect(creates()).toHaveLength(1));
    expect(creates()[0]?.body).toMatchObject({ actor: "https://kith.test/users/alice", object: { content: expect.stringContaining("hello, followers") } });
    expect(kith.federation.loaded).toBe(true);
  });

  it("is built at start when jobs of its queues are waiting", async () => {
    const kith = await kithOnDatabase();
    await kith.queue.enqueue(REPLIES_QUEUE, { statusId: "0", depth: 0 });
    expect(kith.federation.loaded).toBe(false);
    await kith.start();
    await eventually(() => expect(kith.federation.loaded).toBe(true));
    await eventually(async () => expect((await kith.queue.counts(REPLIES_QUEUE)).submitted).toBe(0));
  });
});
