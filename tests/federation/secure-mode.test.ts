/**
 * Secure mode (`authorizedFetch`, KITH_AUTHORIZED_FETCH), as Mastodon's
 * authorized fetch, between two instances both in it, over real HTTP:
 * statuses and collections only for GETs signed by an actor whose key
 * verifies and whose domain may federate; the instance actor and the
 * actors' keys open to all, so that the two can still verify each other's
 * signatures, follow, deliver and resolve; bad signatures refused with 401
 * and blocked domains with 403, never a 500.
 */
import { type RemoteServer, type TestUser, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AP_ACCEPT, jsonOf, tampered } from "../support/activitypub-answers.js";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, eventually, startKithPair } from "../support/federation-pair.js";

type Json = Record<string, unknown>;

const HOUR_MS = 60 * 60 * 1000;

async function api(side: PairedKith, method: string, path: string, token: string, json?: unknown): Promise<Json> {
  const response = await side.kith.request(method, path, { token, ...(json !== undefined && { json }) });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

const unsigned = (url: string, accept = AP_ACCEPT) => fetch(url, { headers: { accept } });

describeOnEngines("secure mode (authorized fetch)", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let remote: RemoteServer;
  let alice: TestUser;
  let bob: TestUser;
  let status: string;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "trudy"]);
    pair = await startKithPair(engine, { a: { authorizedFetch: true }, b: { authorizedFetch: true } });
    ({ a, b } = pair);
    [alice, bob] = await Promise.all([a.kith.createUser("alice"), b.kith.createUser("bob")]);
    status = String((await api(a, "POST", "/api/v1/statuses", alice.token, { status: "open to signed fetches", visibility: "public" })).uri);
  }, 60_000);
  afterAll(async () => {
    await pair?.close();
    await remote?.close();
  });

  const actor = (name: string) => remote.actors[name] ?? expect.unreachable(name);
  const collections = () => ["outbox", "followers", "following", "collections/featured"].map((name) => `${a.origin}/users/alice/${name}`);

  it("refuses unsigned GETs of statuses and collections with 401", async () => {
    for (const url of [status, ...collections()]) {
      expect(await jsonOf(await unsigned(url))).toEqual({
        status: 401,
        body: { error: expect.any(String), code: "federation.fetch_not_signed" },
      });
    }
  });

  it("serves the instance actor, its outbox and the actors' keys unsigned, and the discovery documents", async () => {
    const instance = await jsonOf(await unsigned(`${a.origin}/users/instance.actor`));
    expect(instance).toMatchObject({ status: 200, body: { type: "Application", publicKey: expect.any(Object) } });
    expect((await unsigned(`${a.origin}/users/instance.actor/outbox`)).status).toBe(200);
    const keysOnly = await jsonOf(await unsigned(`${a.origin}/users/alice`));
    expect(keysOnly).toMatchObject({
      status: 200,
      body: { id: `${a.origin}/users/alice`, type: "Person", preferredUsername: "alice", inbox: expect.any(String) },
    });
    expect((keysOnly.body.publicKey as Json).id).toBe(`${a.origin}/users/alice#main-key`);
    for (const withheld of ["name", "outbox", "followers", "following", "featured", "url", "published"]) {
      expect(keysOnly.body).not.toHaveProperty(withheld);
    }
    for (const path of ["/.well-known/nodeinfo", "/nodeinfo/2.1", "/.well-known/host-meta"]) {
      expect((await fetch(`${a.origin}${path}`)).status).toBe(200);
    }
    // WebFinger reads the whole actor, whose profile page it links.
    const finger = await jsonOf(await fetch(`${a.origin}/.well-known/webfinger?resource=acct:alice@${a.host}`));
    expect(finger.body.links).toContainEqual(expect.objectContaining({ rel: "http://webfinger.net/rel/profile-page" }));
  });

  it("serves statuses, collections and whole actors to a signed GET of a domain that may federate", async () => {
    const mallory = actor("mallory");
    for (const url of [status, ...collections()]) expect((await fetch(await remote.signedGet(url, mallory))).status).toBe(200);
    const whole = await jsonOf(await fetch(await remote.signedGet(`${a.origin}/users/alice`, mallory)));
    expect(whole.body).toMatchObject({ outbox: `${a.origin}/users/alice/outbox`, followers: `${a.origin}/users/alice/followers` });
    const rfc9421 = await fetch(await remote.signedGet(status, mallory, { spec: "rfc9421" }));
    expect(rfc9421.status).toBe(200);
  });

  it("federates with another server in secure mode: resolves, follows, delivers and fetches statuses", async () => {
    const [aliceOnB] = (await api(b, "GET", `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(`@alice@${a.host}`)}`, bob.token))
      .accounts as Json[];
    expect(aliceOnB).toMatchObject({ acct: `alice@${a.host}`, display_name: "alice" });
    await api(b, "POST", `/api/v1/accounts/${String(aliceOnB?.id)}/follow`, bob.token);
    await eventually(
      async () => (await api(b, "GET", `/api/v1/accounts/relationships?id[]=${String(aliceOnB?.id)}`, bob.token)) as unknown as Json[],
      (relationships) => relationships[0]?.following === true,
    );
    await api(a, "POST", "/api/v1/statuses", alice.token, { status: "delivered in secure mode", visibility: "public" });
    const home = await eventually(
      async () => (await b.kith.request("GET", "/api/v1/timelines/home", { token: bob.token }).then((r) => r.json())) as Json[],
      (statuses) => statuses.some((item) => String(item.content).includes("delivered in secure mode")),
    );
    expect(home.some((item) => String(item.content).includes("delivered in secure mode"))).toBe(true);
    const found = await api(b, "GET", `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(status)}`, bob.token);
    expect(found.statuses).toEqual([expect.objectContaining({ uri: status })]);
  });

  it("refuses signatures that do not verify, are another's key or out of date with 401, never a 500", async () => {
    const mallory = actor("mallory");
    const cases: [Request, string][] = [
      [tampered(await remote.signedGet(status, mallory)), "federation.signature_invalid"],
      [await remote.signedGet(status, mallory, { keyOf: actor("trudy") }), "federation.signature_invalid"],
      [await remote.signedGet(status, mallory, { signedAt: new Date(Date.now() - 13 * HOUR_MS) }), "federation.signature_expired"],
      [await remote.signedGet(status, mallory, { signedAt: new Date(Date.now() + 2 * HOUR_MS) }), "federation.signature_in_future"],
      [
        new Request(status, { headers: { accept: AP_ACCEPT, date: new Date().toUTCString(), signature: 'keyId="no url",signature="x"' } }),
        "federation.signature_invalid",
      ],
      [new Request(status, { headers: { accept: AP_ACCEPT, signature: "garbage" } }), "federation.signature_expired"],
    ];
    for (const [request, code] of cases) expect(await jsonOf(await fetch(request))).toMatchObject({ status: 401, body: { code } });
  });

  it("refuses a GET signed by a key of a blocked domain with 403, fetching nothing, and gives it only the keys of an actor", async () => {
    await a.kith.services.domainPolicy.createBlock({ domain: "localhost", severity: "SUSPEND" });
    const mallory = actor("mallory");
    const blocked = { ...mallory, rsaKeyId: new URL(mallory.rsaKeyId.href.replace("127.0.0.1", "localhost")) };
    const before = remote.fetched.length;
    expect(await jsonOf(await fetch(await remote.signedGet(status, blocked)))).toMatchObject({
      status: 403,
      body: { code: "federation.domain_refused" },
    });
    const keysOnly = await jsonOf(await fetch(await remote.signedGet(`${a.origin}/users/alice`, blocked)));
    expect(keysOnly.status).toBe(200);
    expect(keysOnly.body).not.toHaveProperty("outbox");
    expect(remote.fetched.length).toBe(before);
  });

  it("leaves a browser's request for a status page to the page, unasked for a signature", async () => {
    expect((await unsigned(status, "text/html")).status).not.toBe(401);
  });
});
