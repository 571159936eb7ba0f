/**
 * Relays between processes: two Kith servers and a fake relay
 * (fake-relay-server.ts, a process of its own speaking the relay protocol
 * with draft-cavage signatures only), over HTTPS on loopback. Server A
 * subscribes Mastodon's way (a Follow of the public collection at the
 * relay's inbox), server B LitePub's way (a Follow of the relay's actor).
 * Each subscription is pending until the relay answers; public statuses go
 * to the relay, which passes them on (to A as the Create it got, signed by
 * its author; to B as an Announce), and they show in the other server's
 * federated timeline; unsubscribing sends the Undo of the Follow. A Create
 * the relay forwards without its author's signature is taken (202) and its
 * status fetched from its own server, stored only when that server has it
 * as the actor's.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type FakeRelay, type RelayReceived, type RelayState, startFakeRelay } from "../support/fake-relay.js";
import { call, eventually } from "../support/federation-api.js";
import { type Federation, type JsonResponse, type TestInstance, startFederation } from "../support/federation-harness.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const RELAYS = "/api/v1/admin/relays";

interface Relay {
  id: string;
  inbox_url: string;
  kind: string;
  actor_url: string | null;
  state: string;
}

interface Status {
  id: string;
  uri: string;
  reblog: Status | null;
  reblogs_count: number;
  account: { acct: string };
}

function ok<T>(response: JsonResponse): T {
  if (response.status >= 300) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
  return response.body as T;
}

/** What the relay took in (a verified signature), of `type`, from `actor`. */
function accepted(state: RelayState, type: string, actor: string): RelayReceived[] {
  return state.received.filter((each) => each.status === 202 && each.type === type && each.actor === actor);
}

describeOnEngines("relays between server processes", (engine) => {
  let net: Federation;
  let a: TestInstance;
  let b: TestInstance;
  let relay: FakeRelay;
  const tokens = { adminA: "", adminB: "", alice: "", bob: "" };
  const instanceActor = (instance: TestInstance) => `${instance.origin}/users/instance.actor`;

  const relayOn = async (instance: TestInstance, token: string, id: string): Promise<Relay> =>
    ok<Relay>(await call(instance, token, "GET", `${RELAYS}/${id}`));
  const federated = async (instance: TestInstance, token: string): Promise<Status[]> =>
    ok<Status[]>(await call(instance, token, "GET", "/api/v1/timelines/public?remote=true&limit=40"));
  const post = async (instance: TestInstance, token: string, status: string, visibility: string): Promise<Status> =>
    ok<Status>(await call(instance, token, "POST", "/api/v1/statuses", { status, visibility }));

  beforeAll(async () => {
    net = await startFederation(2, process.env.KITH_TEST_DUMP ? { KITH_LOG_LEVEL: "debug" } : {}, engine.name);
    [a, b] = net.instances as [TestInstance, TestInstance];
    relay = await startFakeRelay(net.ca);
    await Promise.all([a.createAccount("admina"), a.createAccount("alice"), b.createAccount("adminb"), b.createAccount("bob")]);
    [tokens.adminA, tokens.adminB, tokens.alice, tokens.bob] = (
      await Promise.all([
        a.runScript("federation-admin-token.ts", ["admina"]),
        b.runScript("federation-admin-token.ts", ["adminb"]),
        a.runScript("federation-token.ts", ["alice"]),
        b.runScript("federation-token.ts", ["bob"]),
      ])
    ).map((token) => token.trim()) as [string, string, string, string];
  }, 180_000);
  afterAll(async () => {
    if (process.env.KITH_TEST_DUMP) {
      for (const instance of net?.instances ?? []) writeFileSync(`${process.env.KITH_TEST_DUMP}-${instance.name}.log`, instance.output());
      if (relay) writeFileSync(`${process.env.KITH_TEST_DUMP}-relay.json`, JSON.stringify(await relay.state(), null, 2));
    }
    await relay?.stop();
    await net?.stop();
  });

  let relayOfA: Relay;
  let relayOfB: Relay;

  it("subscribes Mastodon's way: a Follow of the public collection, pending until the relay accepts", async () => {
    await relay.mode("hold");
    relayOfA = ok<Relay>(await call(a, tokens.adminA, "POST", RELAYS, { inbox_url: relay.inbox }));
    expect(relayOfA).toMatchObject({ inbox_url: relay.inbox, kind: "mastodon", state: "pending", actor_url: null });

    const held = await eventually(relay.state, (state) => state.held === 1);
    const [follow] = accepted(held, "Follow", instanceActor(a));
    expect(follow?.object).toBe(PUBLIC);
    expect((await relayOn(a, tokens.adminA, relayOfA.id)).state).toBe("pending");

    await relay.answerHeld("accept");
    const answered = await eventually(
      () => relayOn(a, tokens.adminA, relayOfA.id),
      (row) => row.state !== "pending",
    );
    expect(answered).toMatchObject({ state: "accepted", actor_url: relay.actor });
    expect(ok<Relay[]>(await call(a, tokens.adminA, "GET", RELAYS)).map((row) => row.id)).toEqual([relayOfA.id]);
  });

  it("subscribes LitePub's way: a Follow of the relay's actor, at the inbox its document gives", async () => {
    await relay.mode("accept");
    relayOfB = ok<Relay>(await call(b, tokens.adminB, "POST", RELAYS, { actor_url: relay.actor }));
    expect(relayOfB).toMatchObject({ inbox_url: relay.inbox, kind: "litepub", state: "pending", actor_url: relay.actor });
    const answered = await eventually(
      () => relayOn(b, tokens.adminB, relayOfB.id),
      (row) => row.state !== "pending",
    );
    expect(answered.state).toBe("accepted");
    const [follow] = accepted(await relay.state(), "Follow", instanceActor(b));
    expect(follow?.object).toBe(relay.actor);
    expect((await relay.state()).subscribers.map((each) => [each.actor, each.kind])).toEqual([
      [instanceActor(a), "mastodon"],
      [instanceActor(b), "litepub"],
    ]);
  });

  it("refuses to add a relay of the same inbox twice", async () => {
    const again = await call(a, tokens.adminA, "POST", RELAYS, { inbox_url: relay.inbox });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "relay.already_added" });
  });

  it("sends local public statuses to the relay, signed by their author, and no others", async () => {
    const unlisted = await post(a, tokens.alice, "unlisted, not relayed", "unlisted");
    const followers = await post(a, tokens.alice, "followers only, not relayed", "private");
    const status = await post(a, tokens.alice, "Hello relay from A", "public");
    const state = await eventually(relay.state, (current) => accepted(current, "Create", `${a.origin}/users/alice`).length > 0);
    const creates = accepted(state, "Create", `${a.origin}/users/alice`);
    expect(creates.map((create) => create.object)).toEqual([status.uri]);
    expect(creates[0]?.signer).toBe(`${a.origin}/users/alice#main-key`);
    // Signed in itself too, so that a relay can pass it on as it came.
    expect(creates[0]?.ldSigned).toBe(true);
    expect(state.received.map((each) => each.object)).not.toContain(unlisted.uri);
    expect(state.received.map((each) => each.object)).not.toContain(followers.uri);
  });

  it("keeps a status relayed as an Announce (LitePub) in the federated timeline, and no boost by the relay", async () => {
    const [status] = accepted(await relay.state(), "Create", `${a.origin}/users/alice`);
    const timeline = await eventually(
      () => federated(b, tokens.bob),
      (statuses) => statuses.some((each) => each.uri === status?.object),
    );
    const seen = timeline.find((each) => each.uri === status?.object);
    expect(seen?.account.acct).toBe(`alice@${a.host}`);
    expect(seen?.reblogs_count).toBe(0);
    expect(timeline.filter((each) => each.reblog !== null)).toEqual([]);
    expect((await relay.state()).deliveries.filter((each) => each.type === "Announce").map((each) => each.status)).toEqual([202]);
  });

  it("keeps a status relayed as the Create its author signed (Mastodon's relays) in the federated timeline", async () => {
    const status = await post(b, tokens.bob, "Hello relay from B", "public");
    const timeline = await eventually(
      () => federated(a, tokens.alice),
      (statuses) => statuses.some((each) => each.uri === status.uri),
    );
    expect(timeline.find((each) => each.uri === status.uri)?.account.acct).toBe(`bob@${b.host}`);
    const forwarded = (await relay.state()).deliveries.filter((each) => each.type === "Create" && each.inbox.startsWith(a.origin));
    expect(forwarded.map((each) => each.status)).toEqual([202]);
  });

  it("fetches from its origin a Create the relay forwards without its author's signature, and stores no forged one", async () => {
    // Unlisted: not passed on by the relay itself, so A has it only from the forwarded Create.
    const genuine = await post(b, tokens.bob, "Unlisted, fetched from B", "unlisted");
    const bob = `${b.origin}/users/bob`;
    const create = (actor: string, objectId: string, content: string) => ({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${objectId}#forwarded-by-${actor.split("/").pop()}`,
      type: "Create",
      actor,
      to: [PUBLIC],
      object: { id: objectId, type: "Note", attributedTo: actor, to: [PUBLIC], content },
    });
    const missing = `${b.origin}/users/bob/statuses/999999999999999`;
    const inbox = `${a.origin}/inbox`;
    // B does not have it; B has it, but as bob's, not adminb's.
    expect(await relay.forward(inbox, create(bob, missing, "<p>never written</p>"))).toBe(202);
    expect(await relay.forward(inbox, create(`${b.origin}/users/adminb`, genuine.uri, "<p>claimed</p>"))).toBe(202);
    // An actor never speaks for another server's object: refused at once.
    expect(await relay.forward(inbox, create(bob, `${a.origin}/users/alice/statuses/1`, "<p>elsewhere</p>"))).toBe(401);
    expect(await relay.forward(inbox, create(bob, genuine.uri, "<p>tampered by the relay</p>"))).toBe(202);

    const stored = await eventually(
      async () => {
        const storage = a.openStorage();
        try {
          return await storage.db
            .selectFrom("statuses")
            .innerJoin("accounts", "accounts.id", "statuses.account_id")
            .select(["statuses.uri", "statuses.content", "accounts.uri as author"])
            .where("statuses.uri", "in", [genuine.uri, missing])
            .execute();
        } finally {
          await storage.close();
        }
      },
      (rows) => rows.length > 0,
    );
    // What B serves, not what the relay said.
    expect(stored).toEqual([{ uri: genuine.uri, content: expect.stringContaining("Unlisted, fetched from B"), author: bob }]);
    // Both forgeries were fetched and dropped.
    await eventually(
      async () => a.output().match(/Dropped a forwarded Create/g)?.length ?? 0,
      (count) => count >= 2,
    );
    const storage = a.openStorage();
    try {
      expect(await storage.db.selectFrom("statuses").select("id").where("uri", "=", missing).execute()).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("unsubscribes with the Undo of the Follow, after which statuses no longer go to the relay", async () => {
    const deleted = await call(a, tokens.adminA, "DELETE", `${RELAYS}/${relayOfA.id}`);
    expect(deleted.status).toBe(200);
    const state = await eventually(relay.state, (current) => accepted(current, "Undo", instanceActor(a)).length > 0);
    const [undo] = accepted(state, "Undo", instanceActor(a));
    const [follow] = accepted(state, "Follow", instanceActor(a));
    expect(undo?.object).toBe(follow?.id);
    const unsubscribed = await eventually(relay.state, (current) => current.subscribers.length === 1);
    expect(unsubscribed.subscribers.map((each) => each.actor)).toEqual([instanceActor(b)]);
    expect(ok<Relay[]>(await call(a, tokens.adminA, "GET", RELAYS))).toEqual([]);

    // A's status, written after, is not sent; B's, written after it, still is: once B's has come, A's would have.
    const fromA = await post(a, tokens.alice, "After the unsubscription", "public");
    const fromB = await post(b, tokens.bob, "B is still subscribed", "public");
    const later = await eventually(relay.state, (current) => current.received.some((each) => each.object === fromB.uri));
    expect(later.received.map((each) => each.object)).not.toContain(fromA.uri);
    const gone = await call(a, tokens.adminA, "DELETE", `${RELAYS}/${relayOfA.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: "relay.not_found" });
  });

  it("marks a subscription the relay rejects as rejected, and subscribes again when enabled", async () => {
    await relay.mode("reject");
    const added = ok<Relay>(await call(a, tokens.adminA, "POST", RELAYS, { inbox_url: relay.inbox }));
    const rejected = await eventually(
      () => relayOn(a, tokens.adminA, added.id),
      (row) => row.state !== "pending",
    );
    expect(rejected.state).toBe("rejected");
    const disable = await call(a, tokens.adminA, "POST", `${RELAYS}/${added.id}/disable`);
    expect(disable.status).toBe(409);
    expect(disable.body).toMatchObject({ code: "relay.not_enabled" });

    await relay.mode("accept");
    expect(ok<Relay>(await call(a, tokens.adminA, "POST", `${RELAYS}/${added.id}/enable`)).state).toBe("pending");
    const enabled = await eventually(
      () => relayOn(a, tokens.adminA, added.id),
      (row) => row.state !== "pending",
    );
    expect(enabled.state).toBe("accepted");
    const twice = await call(a, tokens.adminA, "POST", `${RELAYS}/${added.id}/enable`);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: "relay.already_enabled" });
    // The Accept of the first, rejected Follow would not count for the second: each Follow has an id of its own.
    const follows = accepted(await relay.state(), "Follow", instanceActor(a)).map((each) => each.id);
    expect(new Set(follows).size).toBe(follows.length);
  });
});
