import { type RemoteServer, type TestKith, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type KithPair, eventually as pairEventually, startKithPair } from "../support/federation-pair.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * An account's deletion across servers, in one process against loopback
 * servers: an administrator's removal of a local account sends one Delete of
 * its actor to each server that knows it; a remote actor's own Delete
 * retires it with its follows and posts, once, and a Delete of an actor by
 * another server's actor changes nothing. Then the same between two Kith
 * instances served over real HTTP.
 */
describeOnEngines("deleting an actor", (engine) => {
  let remote: RemoteServer;
  let other: RemoteServer;
  let kith: TestKith;
  let owner: TestUser;
  let alice: TestUser;
  let serial = 0;

  beforeAll(async () => {
    [remote, other] = await Promise.all([startRemoteServer(["mallory", "eve"]), startRemoteServer(["trudy"])]);
  });
  afterAll(async () => {
    await Promise.all([remote?.close(), other?.close()]);
  });
  beforeEach(async () => {
    remote.received.length = 0;
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    owner = await kith.createUser("owner", { role: "Owner" });
    alice = await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const actor = (server: RemoteServer, name: string) => server.actors[name] ?? expect.unreachable(name);
  const mallory = () => actor(remote, "mallory");

  /** Waits until no job of the federation queue is ready or running. */
  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await kith.queue.counts("federation");
      expect(counts.submitted + counts.active).toBe(0);
    });
  }

  async function deliver(server: RemoteServer, activity: Record<string, unknown>, signer = actor(server, String(activity.actor).split("/").pop() ?? "")) {
    const request = await server.signedPost("https://kith.test/inbox", { "@context": "https://www.w3.org/ns/activitystreams", ...activity }, signer);
    return kith.fetch(request, { clientIp: server.host });
  }

  const followAlice = (who: string) =>
    deliver(remote, { id: `${remote.origin}/users/${who}/follows/${++serial}`, type: "Follow", actor: `${remote.origin}/users/${who}`, object: "https://kith.test/users/alice" });

  async function accountOf(uri: string) {
    return kith.storage.db.selectFrom("accounts").selectAll().where("uri", "=", uri).executeTakeFirst();
  }

  async function count(table: "follows" | "statuses", column: "account_id" | "target_account_id", id: string): Promise<number> {
    const row = await kith.storage.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(column, "=", id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it("sends one Delete of the actor to the shared inbox of a server whose accounts follow it, signed by it", async () => {
    expect((await followAlice("mallory")).status).toBe(202);
    expect((await followAlice("eve")).status).toBe(202);
    await settle();
    expect(await count("follows", "target_account_id", alice.account.id)).toBe(2);
    remote.received.length = 0;

    const suspend = await kith.request("POST", `/api/v1/admin/accounts/${alice.account.id}/action`, { token: owner.token, json: { type: "suspend" } });
    expect(suspend.status).toBe(200);
    const deleted = await kith.request("DELETE", `/api/v1/admin/accounts/${alice.account.id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    await settle();

    const deletes = remote.received.filter((request) => (request.body as { type?: string }).type === "Delete");
    expect(deletes).toHaveLength(1);
    const [del] = deletes;
    expect(del?.path).toBe("/inbox");
    expect(del?.body).toMatchObject({ actor: "https://kith.test/users/alice", object: "https://kith.test/users/alice" });
    expect(String(del?.headers["signature-input"] ?? del?.headers.signature)).toContain("https://kith.test/users/alice#main-key");
    expect(await kith.storage.db.selectFrom("accounts").select("id").where("id", "=", alice.account.id).executeTakeFirst()).toBeUndefined();
  });

  it("sends nothing for an account no other server knows", async () => {
    await kith.request("POST", `/api/v1/admin/accounts/${alice.account.id}/action`, { token: owner.token, json: { type: "suspend" } });
    expect((await kith.request("DELETE", `/api/v1/admin/accounts/${alice.account.id}`, { token: owner.token })).status).toBe(200);
    await settle();
    expect(remote.received).toEqual([]);
  });

  it("retires a remote actor on its own Delete, with its follows and posts, once; another origin's Delete of it changes nothing", async () => {
    const malloryUri = mallory().id.href;
    expect((await followAlice("mallory")).status).toBe(202);
    const note = `${malloryUri}/statuses/1`;
    const create = await deliver(remote, {
      id: `${note}/activity`,
      type: "Create",
      actor: malloryUri,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: { id: note, type: "Note", attributedTo: malloryUri, content: "<p>hello</p>", to: ["https://www.w3.org/ns/activitystreams#Public"] },
    });
    expect(create.status).toBe(202);
    await settle();
    const stored = await accountOf(malloryUri);
    const id = stored?.id ?? expect.unreachable("mallory stored");
    expect(await count("statuses", "account_id", id)).toBe(1);
    expect(await count("follows", "account_id", id)).toBe(1);

    const deleteOfMallory = { type: "Delete", object: malloryUri, to: ["https://www.w3.org/ns/activitystreams#Public"] };
    const trudy = actor(other, "trudy");
    // Another server's actor deleting mallory: accepted as an activity of its own, without effect.
    const foreign = await deliver(other, { ...deleteOfMallory, id: `${trudy.id.href}#delete-mallory`, actor: trudy.id.href });
    expect(foreign.status).toBeLessThan(300);
    // Claiming to be mallory with trudy's key: refused by the signature check.
    const forged = await deliver(remote, { ...deleteOfMallory, id: `${malloryUri}#forged`, actor: malloryUri }, trudy);
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
    await settle();
    expect((await accountOf(malloryUri))?.suspended_at).toBeNull();
    expect(await count("statuses", "account_id", id)).toBe(1);
    expect(await count("follows", "account_id", id)).toBe(1);

    for (let i = 0; i < 2; i++) {
      const own = await deliver(remote, { ...deleteOfMallory, id: `${malloryUri}#delete`, actor: malloryUri });
      expect(own.status).toBe(202);
      await settle();
    }
    expect((await accountOf(malloryUri))?.suspended_at).not.toBeNull();
    expect(await count("statuses", "account_id", id)).toBe(0);
    expect(await count("follows", "account_id", id)).toBe(0);
    const local = await kith.storage.db.selectFrom("accounts").select("followers_count").where("id", "=", alice.account.id).executeTakeFirst();
    expect(local?.followers_count).toBe(0);
    const lookup = await kith.request("GET", `/api/v1/accounts/lookup?acct=mallory@${remote.host}`);
    expect(lookup.status).toBe(200);
    expect(await lookup.json()).toMatchObject({ suspended: true });
  });
});

describeOnEngines("deleting an actor between two instances", (engine) => {
  let pair: KithPair | undefined;
  afterAll(async () => {
    await pair?.close();
  });

  it("an administrator's removal of an account reaches the other instance, which retires it there", async () => {
    pair = await startKithPair(engine);
    const { a, b } = pair;
    const [owner, dave, bob] = await Promise.all([a.kith.createUser("owner", { role: "Owner" }), a.kith.createUser("dave"), b.kith.createUser("bob")]);
    const search = await b.kith.request("GET", `/api/v2/search?q=${encodeURIComponent(`@dave@${a.host}`)}&resolve=true&type=accounts`, {
      token: bob.token,
    });
    const [daveOnB] = ((await search.json()) as { accounts: { id: string }[] }).accounts;
    const daveId = daveOnB?.id ?? expect.unreachable("dave resolved");
    expect((await b.kith.request("POST", `/api/v1/accounts/${daveId}/follow`, { token: bob.token })).status).toBe(200);
    const relationship = async () =>
      ((await (await b.kith.request("GET", `/api/v1/accounts/relationships?id[]=${daveId}`, { token: bob.token })).json()) as { following: boolean }[])[0];
    expect(await pairEventually(relationship, (rel) => rel?.following === true)).toMatchObject({ following: true });

    await a.kith.request("POST", `/api/v1/admin/accounts/${dave.account.id}/action`, { token: owner.token, json: { type: "suspend" } });
    expect((await a.kith.request("DELETE", `/api/v1/admin/accounts/${dave.account.id}`, { token: owner.token })).status).toBe(200);
    const retired = await pairEventually(
      () => b.kith.storage.db.selectFrom("accounts").select("suspended_at").where("id", "=", daveId).executeTakeFirst(),
      (row) => row?.suspended_at !== null,
    );
    expect(retired?.suspended_at).not.toBeNull();
    const follows = await b.kith.storage.db.selectFrom("follows").select("id").where("target_account_id", "=", daveId).execute();
    expect(follows).toEqual([]);
  }, 60_000);
});
