/**
 * Followers-only and direct statuses fetched by their URL, between two
 * instances over real HTTP, as Mastodon serves them: to a GET signed by an
 * accepted follower of the author (followers-only) or by a mentioned account
 * (both), whose signature the author's server verifies by fetching the
 * signer's key; every other request (unsigned, signed by anyone else, or
 * with a signature that does not verify) gets the 404 of a missing status.
 * So are what a status points to (its Create at `/activity`, its replies
 * collection), and the author's outbox lists followers-only statuses to a
 * follower's signed GET alone.
 */
import { type RemoteServer, type TestUser, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AP_ACCEPT, jsonOf, tampered } from "../support/activitypub-answers.js";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, eventually, startKithPair } from "../support/federation-pair.js";

type Json = Record<string, unknown>;

const AS = "https://www.w3.org/ns/activitystreams";

async function api(side: PairedKith, method: string, path: string, token: string, json?: unknown): Promise<Json> {
  const response = await side.kith.request(method, path, { token, ...(json !== undefined && { json }) });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function resolveOn(side: PairedKith, token: string, handle: string): Promise<string> {
  const found = await api(side, "GET", `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`, token);
  const [account] = found.accounts as Json[];
  return String(account?.id);
}

/**
 * The document at `url` fetched by `side` as its actor `identifier` (a GET signed with that actor's key, as the
 * side's own signed fetches are made), or the error it got.
 */
async function fetchAs(side: PairedKith, identifier: string, url: string): Promise<Json | { error: string }> {
  const federation = await side.kith.federation.load();
  const load = await federation.context().getDocumentLoader({ identifier });
  try {
    return (await load(url)).document as Json;
  } catch (error) {
    return { error: String(error) };
  }
}

describeOnEngines("followers-only and direct statuses fetched by URL", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let remote: RemoteServer;
  let alice: TestUser;
  let bob: TestUser;
  let forFollowers: string;
  let forCarol: string;
  let forAll: string;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "trudy"]);
    pair = await startKithPair(engine);
    ({ a, b } = pair);
    [alice, bob] = await Promise.all([a.kith.createUser("alice"), b.kith.createUser("bob")]);
    await Promise.all([b.kith.createUser("carol"), b.kith.createUser("dave")]);
    // bob follows alice (accepted: her account is open); carol does not.
    const aliceOnB = await resolveOn(b, bob.token, `@alice@${a.host}`);
    await api(b, "POST", `/api/v1/accounts/${aliceOnB}/follow`, bob.token);
    await eventually(
      async () => (await api(b, "GET", `/api/v1/accounts/relationships?id[]=${aliceOnB}`, bob.token)) as unknown as Json[],
      (relationships) => relationships[0]?.following === true,
    );
    await resolveOn(a, alice.token, `@carol@${b.host}`);
    // mallory, of a scripted server, follows alice too; trudy does not.
    const mallory = actor("mallory");
    const follow = { "@context": AS, id: `${mallory.id.href}/follows/1`, type: "Follow", actor: mallory.id.href, object: `${a.origin}/users/alice` };
    expect((await fetch(await remote.signedPost(`${a.origin}/users/alice/inbox`, follow, mallory))).status).toBe(202);
    await eventually(
      async () => (await api(a, "GET", `/api/v1/accounts/${alice.account.id}`, alice.token)).followers_count,
      (count) => count === 2,
    );
    const post = async (json: Json) => String((await api(a, "POST", "/api/v1/statuses", alice.token, json)).uri);
    forFollowers = await post({ status: "for my followers", visibility: "private" });
    forCarol = await post({ status: `@carol@${b.host} for you alone`, visibility: "direct" });
    forAll = await post({ status: "for everyone", visibility: "public" });
  }, 60_000);
  afterAll(async () => {
    await pair?.close();
    await remote?.close();
  });

  const actor = (name: string) => remote.actors[name] ?? expect.unreachable(name);

  it("serves a followers-only status to a GET signed by an accepted follower", async () => {
    expect(await fetchAs(b, "bob", forFollowers)).toMatchObject({ id: forFollowers, type: "Note", content: expect.stringContaining("for my followers") });
    const byMallory = await fetch(await remote.signedGet(forFollowers, actor("mallory")));
    expect(byMallory.status).toBe(200);
    expect(await byMallory.json()).toMatchObject({ id: forFollowers, type: "Note" });
    // Its answer depends on the signature: no shared cache may keep it.
    expect(byMallory.headers.get("cache-control")).toBe("private");
  });

  it("serves a direct status to the mentioned account's signed GET, and to no follower", async () => {
    expect(await fetchAs(b, "carol", forCarol)).toMatchObject({ id: forCarol, type: "Note" });
    expect(await fetchAs(b, "bob", forCarol)).toEqual({ error: expect.stringContaining("404") });
  });

  it("answers 404 to a non-follower's signed GET, to another server's instance actor and to an unsigned GET", async () => {
    expect(await fetchAs(b, "dave", forFollowers)).toEqual({ error: expect.stringContaining("404") });
    expect(await fetchAs(b, "instance.actor", forFollowers)).toEqual({ error: expect.stringContaining("404") });
    expect((await fetch(forFollowers, { headers: { accept: AP_ACCEPT } })).status).toBe(404);
    expect((await fetch(forCarol, { headers: { accept: AP_ACCEPT } })).status).toBe(404);
    expect((await fetch(await remote.signedGet(forFollowers, actor("trudy")))).status).toBe(404);
  });

  it("answers a follower's request whose signature does not verify, is another's key or is out of date with 404, never a 500", async () => {
    const mallory = actor("mallory");
    const cases = [
      tampered(await remote.signedGet(forFollowers, mallory)),
      await remote.signedGet(forFollowers, mallory, { keyOf: actor("trudy") }),
      await remote.signedGet(forFollowers, mallory, { signedAt: new Date(Date.now() - 13 * 60 * 60 * 1000) }),
      await remote.signedGet(forFollowers, mallory, { signedAt: new Date(Date.now() + 2 * 60 * 60 * 1000) }),
      new Request(forFollowers, { headers: { accept: AP_ACCEPT, signature: 'keyId="not a url",signature="x"', date: new Date().toUTCString() } }),
    ];
    for (const request of cases) expect((await jsonOf(await fetch(request))).status).toBe(404);
    // A public status is served whatever its request's signature: read as none.
    expect((await fetch(tampered(await remote.signedGet(forAll, mallory)))).status).toBe(200);
  });

  /** The document at `url` as a GET signed by the scripted server's actor `name` (null: unsigned) gets it: its status and body. */
  async function getAs(name: string | null, url: string): Promise<{ status: number; body: Json | null }> {
    const request = name === null ? new Request(url, { headers: { accept: AP_ACCEPT } }) : await remote.signedGet(url, actor(name));
    const response = await fetch(request);
    const body = response.status === 200 ? ((await response.json()) as Json) : null;
    return { status: response.status, body };
  }

  it("serves a followers-only status's Create and replies to a follower's signed GET, and 404 to others", async () => {
    const activity = await getAs("mallory", `${forFollowers}/activity`);
    expect(activity).toMatchObject({ status: 200, body: { type: "Create", object: expect.objectContaining({ id: forFollowers }) } });
    const replies = await getAs("mallory", `${forFollowers}/replies`);
    expect(replies).toMatchObject({ status: 200, body: { id: `${forFollowers}/replies` } });
    for (const who of [null, "trudy"]) {
      expect((await getAs(who, `${forFollowers}/activity`)).status).toBe(404);
      expect((await getAs(who, `${forFollowers}/replies`)).status).toBe(404);
    }
    // A direct status's are the mentioned account's alone.
    expect((await getAs("mallory", `${forCarol}/activity`)).status).toBe(404);
    expect(await fetchAs(b, "carol", `${forCarol}/activity`)).toMatchObject({ type: "Create" });
    // A public status's to anyone.
    expect((await getAs(null, `${forAll}/activity`)).status).toBe(200);
  });

  it("lists followers-only statuses in the outbox to a follower's signed GET alone", async () => {
    const outbox = `${a.origin}/users/alice/outbox`;
    /** The ids of the objects of the outbox's first page, as `name` sees them, and its count. */
    async function seenBy(name: string | null): Promise<{ total: unknown; objects: string[] }> {
      const collection = await getAs(name, outbox);
      expect(collection.status).toBe(200);
      const first = collection.body?.first;
      const page = typeof first === "string" ? await getAs(name, first) : { status: 200, body: first as Json };
      expect(page.status).toBe(200);
      const items = (page.body?.orderedItems ?? []) as Json[];
      const objects = items.map((item) => (typeof item.object === "string" ? item.object : String((item.object as Json)?.id)));
      return { total: collection.body?.totalItems, objects };
    }
    const follower = await seenBy("mallory");
    expect(follower.objects).toEqual(expect.arrayContaining([forFollowers, forAll]));
    expect(follower.objects).not.toContain(forCarol);
    expect(follower.total).toBe(2);
    for (const who of [null, "trudy"]) {
      const other = await seenBy(who);
      expect(other.objects).toContain(forAll);
      expect(other.objects).not.toContain(forFollowers);
      expect(other.objects).not.toContain(forCarol);
      expect(other.total).toBe(1);
    }
  });
});
