/**
 * The social graph between two Kith instances served over real HTTP in this
 * process, driven through their Mastodon APIs: resolving remote accounts,
 * follows (open and locked), unfollow, blocks, profile updates, moves, the
 * spec's remote collections, and Flags sent to another server.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { type TestUser, vocab } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../support/federation-harness.js";
import { describeOnEngines } from "../support/engines.js";
import { type KithPair, type PairedKith, eventually, startKithPair } from "../support/federation-pair.js";

type Json = Record<string, unknown>;

async function api(
  side: PairedKith,
  method: string,
  path: string,
  token?: string,
  json?: unknown,
): Promise<{ status: number; body: Json & Json[] }> {
  const response = await side.kith.request(method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function relationship(side: PairedKith, token: string, id: string): Promise<Json> {
  const { body } = await api(side, "GET", `/api/v1/accounts/relationships?id[]=${id}`, token);
  return (body as unknown as Json[])[0] as Json;
}

/** The id on `side` of an account of the other side, resolved through search as a client does. */
async function resolveOn(side: PairedKith, token: string, handle: string): Promise<string> {
  const { status, body } = await api(side, "GET", `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`, token);
  expect(status).toBe(200);
  const accounts = body.accounts as Json[];
  expect(accounts).toHaveLength(1);
  return (accounts[0] as Json).id as string;
}

describeOnEngines("the social graph between two instances", (engine) => {
  let pair: KithPair;
  let a: PairedKith;
  let b: PairedKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  beforeAll(async () => {
    pair = await startKithPair(engine);
    ({ a, b } = pair);
    [alice, bob, carol] = await Promise.all([a.kith.createUser("alice"), b.kith.createUser("bob"), b.kith.createUser("carol")]);
  }, 60_000);
  afterAll(async () => {
    await pair?.close();
  });

  it("resolves a remote account by handle and by actor URL, stores it, and looks it up by acct", async () => {
    const unknown = await api(a, "GET", `/api/v1/accounts/lookup?acct=bob@${b.host}`);
    expect(unknown.status).toBe(404);
    const id = await resolveOn(a, alice.token, `@bob@${b.host}`);
    expect(await resolveOn(a, alice.token, `${b.origin}/users/bob`)).toBe(id);
    const known = await api(a, "GET", `/api/v1/accounts/lookup?acct=bob@${b.host}`);
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({ id, username: "bob", acct: `bob@${b.host}` });
    const nobody = await api(a, "GET", `/api/v2/search?q=${encodeURIComponent(`@nobody@${b.host}`)}&resolve=true`, alice.token);
    expect(nobody.body.accounts).toEqual([]);
  });

  it("refreshes a stale remote account when it is looked up", async () => {
    const id = await resolveOn(a, alice.token, `@carol@${b.host}`);
    expect((await api(b, "PATCH", "/api/v1/accounts/update_credentials", carol.token, { display_name: "Carol Renamed" })).status).toBe(200);
    // Within a day the stored copy is used as it is.
    expect((await api(a, "GET", `/api/v1/accounts/lookup?acct=carol@${b.host}`)).body.display_name).not.toBe("Carol Renamed");
    a.kith.clock.advance(25 * 60 * 60 * 1000);
    const refreshed = await api(a, "GET", `/api/v1/accounts/lookup?acct=carol@${b.host}`);
    expect(refreshed.body).toMatchObject({ id, display_name: "Carol Renamed" });
  });

  it("follows an open remote account through the API: requested until the Accept arrives, then following", async () => {
    const bobOnA = await resolveOn(a, alice.token, `@bob@${b.host}`);
    const followed = await api(a, "POST", `/api/v1/accounts/${bobOnA}/follow`, alice.token);
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({ following: false, requested: true });
    const after = await eventually(
      () => relationship(a, alice.token, bobOnA),
      (rel) => rel.following === true,
    );
    expect(after).toMatchObject({ following: true, requested: false });
    const aliceOnB = await resolveOn(b, bob.token, `@alice@${a.host}`);
    expect(await relationship(b, bob.token, aliceOnB)).toMatchObject({ followed_by: true });
  });

  it("asks a locked remote account; its authorize sends the Accept back", async () => {
    expect((await api(b, "PATCH", "/api/v1/accounts/update_credentials", carol.token, { locked: true })).status).toBe(200);
    const carolOnA = await resolveOn(a, alice.token, `${b.origin}/users/carol`);
    expect((await api(a, "POST", `/api/v1/accounts/${carolOnA}/follow`, alice.token)).body).toMatchObject({ requested: true });
    const requests = await eventually(
      async () => (await api(b, "GET", "/api/v1/follow_requests", carol.token)).body as unknown as Json[],
      (list) => list.length === 1,
    );
    expect(requests.map((account) => account.acct)).toEqual([`alice@${a.host}`]);
    const aliceOnB = (requests[0] as Json).id as string;
    expect((await relationship(a, alice.token, carolOnA)).following).toBe(false);
    expect((await api(b, "POST", `/api/v1/follow_requests/${aliceOnB}/authorize`, carol.token)).status).toBe(200);
    const after = await eventually(
      () => relationship(a, alice.token, carolOnA),
      (rel) => rel.following === true,
    );
    expect(after).toMatchObject({ following: true, requested: false });
  });

  it("removing a remote follower tells its server, which drops the follow", async () => {
    const aliceOnB = await resolveOn(b, carol.token, `@alice@${a.host}`);
    const carolOnA = await resolveOn(a, alice.token, `@carol@${b.host}`);
    expect((await api(b, "POST", `/api/v1/accounts/${aliceOnB}/remove_from_followers`, carol.token)).status).toBe(200);
    const after = await eventually(
      () => relationship(a, alice.token, carolOnA),
      (rel) => rel.following === false,
    );
    expect(after.following).toBe(false);
  });

  it("reads a remote user's followers and following over ActivityPub, as accounts of this server", async () => {
    const followers = await api(a, "GET", `/api/v1/users/remote/bob@${b.host}/followers`);
    expect(followers.status).toBe(200);
    expect(followers.body.map((account) => account.acct)).toEqual(["alice"]);
    const following = await api(b, "GET", `/api/v1/users/remote/alice@${a.host}/following`);
    expect(following.status).toBe(200);
    expect(following.body.map((account) => account.acct)).toEqual(["bob"]);
    const skipped = await api(a, "GET", `/api/v1/users/remote/bob@${b.host}/followers?offset=1&limit=5`);
    expect(skipped.body).toEqual([]);
  });

  it("refuses local users, unknown users and malformed names in remote collections", async () => {
    const local = await api(a, "GET", `/api/v1/users/remote/alice@${a.host}/followers`);
    expect(local.status).toBe(422);
    expect(local.body).toMatchObject({ code: "remote_account.local" });
    const unknown = await api(a, "GET", `/api/v1/users/remote/nobody@${b.host}/following`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "account.not_found" });
    const malformed = await api(a, "GET", "/api/v1/users/remote/not-a-handle/followers");
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({ code: "remote_account.invalid_name" });
    const badOffset = await api(a, "GET", `/api/v1/users/remote/bob@${b.host}/followers?offset=-1`);
    expect(badOffset.status).toBe(422);
    expect(badOffset.body).toMatchObject({ code: "request.validation_failed" });
  });

  it("sends a profile update to followers' servers, which show the new name", async () => {
    const bobOnA = await resolveOn(a, alice.token, `@bob@${b.host}`);
    expect((await api(b, "PATCH", "/api/v1/accounts/update_credentials", bob.token, { display_name: "Bob Builder" })).status).toBe(200);
    const seen = await eventually(
      async () => (await api(a, "GET", `/api/v1/accounts/${bobOnA}`, alice.token)).body,
      (account) => account.display_name === "Bob Builder",
    );
    expect(seen.display_name).toBe("Bob Builder");
  });

  it("blocks across servers: the block ends the follow both ways, its undo lifts blocked_by", async () => {
    const bobOnA = await resolveOn(a, alice.token, `@bob@${b.host}`);
    const aliceOnB = await resolveOn(b, bob.token, `@alice@${a.host}`);
    expect((await relationship(a, alice.token, bobOnA)).following).toBe(true);
    expect((await api(b, "POST", `/api/v1/accounts/${aliceOnB}/block`, bob.token)).status).toBe(200);
    const blocked = await eventually(
      () => relationship(a, alice.token, bobOnA),
      (rel) => rel.blocked_by === true,
    );
    expect(blocked).toMatchObject({ blocked_by: true, following: false });
    expect((await api(a, "POST", `/api/v1/accounts/${bobOnA}/follow`, alice.token)).status).toBe(403);
    expect((await api(b, "POST", `/api/v1/accounts/${aliceOnB}/unblock`, bob.token)).status).toBe(200);
    const lifted = await eventually(
      () => relationship(a, alice.token, bobOnA),
      (rel) => rel.blocked_by === false,
    );
    expect(lifted.blocked_by).toBe(false);
  });

  it("unfollow sends Undo(Follow): the other side loses the follower", async () => {
    const bobOnA = await resolveOn(a, alice.token, `@bob@${b.host}`);
    const aliceOnB = await resolveOn(b, bob.token, `@alice@${a.host}`);
    await api(a, "POST", `/api/v1/accounts/${bobOnA}/follow`, alice.token);
    await eventually(
      () => relationship(b, bob.token, aliceOnB),
      (rel) => rel.followed_by === true,
    );
    // Unfollowing an accepted follow: bob's Accept has reached alice's server too.
    await eventually(
      () => relationship(a, alice.token, bobOnA),
      (rel) => rel.following === true,
    );
    expect((await api(a, "POST", `/api/v1/accounts/${bobOnA}/unfollow`, alice.token)).body).toMatchObject({ following: false });
    const after = await eventually(
      () => relationship(b, bob.token, aliceOnB),
      (rel) => rel.followed_by === false,
    );
    expect(after.followed_by).toBe(false);
  });

  it("ignores an Update of another actor and a Move whose target does not name the origin", async () => {
    const carolOnA = await resolveOn(a, alice.token, `@carol@${b.host}`);
    const bobOnA = await resolveOn(a, alice.token, `@bob@${b.host}`);
    const before = (await api(a, "GET", `/api/v1/accounts/${carolOnA}`, alice.token)).body.display_name;
    // Following bob, so that his real profile update below reaches a.
    await api(a, "POST", `/api/v1/accounts/${bobOnA}/follow`, alice.token);
    await eventually(
      () => relationship(a, alice.token, bobOnA),
      (rel) => rel.following === true,
    );
    const ctx = (await b.kith.federation.load()).context();
    const bobUri = new URL(`${b.origin}/users/bob`);
    const aliceInbox = { id: new URL(`${a.origin}/users/alice`), inboxId: new URL(`${a.origin}/users/alice/inbox`) };
    const forgedUpdate = new vocab.Update({
      id: new URL(`${bobUri.href}#forged-update`),
      actor: bobUri,
      object: new vocab.Person({ id: new URL(`${b.origin}/users/carol`), name: "Forged by Bob" }),
    });
    const forgedMove = new vocab.Move({
      id: new URL(`${bobUri.href}#forged-move`),
      actor: bobUri,
      object: bobUri,
      target: new URL(`${b.origin}/users/carol`),
    });
    await ctx.sendActivity({ identifier: "bob" }, aliceInbox, forgedUpdate, { immediate: true });
    await ctx.sendActivity({ identifier: "bob" }, aliceInbox, forgedMove, { immediate: true });
    // A real update sent after them: once it shows, the forged ones have been handled too.
    expect((await api(b, "PATCH", "/api/v1/accounts/update_credentials", bob.token, { display_name: "Bob Marker" })).status).toBe(200);
    const marker = await eventually(
      async () => (await api(a, "GET", `/api/v1/accounts/${bobOnA}`, alice.token)).body,
      (account) => account.display_name === "Bob Marker",
    );
    expect(marker.moved).toBeNull();
    expect((await api(a, "GET", `/api/v1/accounts/${carolOnA}`, alice.token)).body.display_name).toBe(before);
  }, 60_000);

  it("moves an account: the new one names the old as an alias, followers' servers follow the new one", async () => {
    const dave = await b.kith.createUser("dave");
    const daveOnA = await resolveOn(a, alice.token, `@dave@${b.host}`);
    await api(a, "POST", `/api/v1/accounts/${daveOnA}/follow`, alice.token);
    await eventually(
      () => relationship(a, alice.token, daveOnA),
      (rel) => rel.following === true,
    );
    const erin = await b.kith.createUser("erin");
    const refused = await api(b, "POST", "/api/v1/accounts/migration", dave.token, { acct: "erin", current_password: dave.password });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "migration.alias_missing" });
    const aliased = await api(b, "POST", "/api/v1/accounts/aliases", erin.token, { acct: `dave@${b.host}` });
    expect(aliased.body).toEqual({ also_known_as: [`${b.origin}/users/dave`] });
    const wrongPassword = await api(b, "POST", "/api/v1/accounts/migration", dave.token, { acct: "erin", current_password: "nope" });
    expect(wrongPassword.status).toBe(422);
    const moved = await api(b, "POST", "/api/v1/accounts/migration", dave.token, { acct: "erin", current_password: dave.password });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ acct: "erin" });
    const erinOnA = await eventually(
      async () => (await api(a, "GET", `/api/v1/accounts/${daveOnA}`, alice.token)).body,
      (account) => account.moved !== null && account.moved !== undefined,
    );
    const target = erinOnA.moved as Json;
    expect(target.acct).toBe(`erin@${b.host}`);
    const now = await eventually(
      () => relationship(a, alice.token, target.id as string),
      (rel) => rel.following === true,
    );
    expect(now.following).toBe(true);
    expect((await relationship(a, alice.token, daveOnA)).following).toBe(false);
  });
});

/** A remote account on the capture server at `port`, as federation stores it. */
function remoteAccountColumns(username: string, port: number, now: string) {
  const remote = `http://127.0.0.1:${port}`;
  return {
    username,
    domain: `127.0.0.1:${port}`,
    acct_key: `${username}@127.0.0.1:${port}`,
    display_name: "",
    note: "",
    actor_type: "Person",
    locked: false,
    discoverable: false,
    uri: `${remote}/users/${username}`,
    url: null,
    created_at: now,
    updated_at: now,
    suspended_at: null,
    silenced_at: null,
    sensitized_at: null,
    avatar_media_id: null,
    header_media_id: null,
    avatar_remote_url: null,
    header_remote_url: null,
    last_status_at: null,
    moved_to_account_id: null,
    inbox_url: `${remote}/users/${username}/inbox`,
    shared_inbox_url: `${remote}/inbox`,
  };
}

describeOnEngines("deliveries to a plain HTTP server standing for another server", (engine) => {
  let pair: KithPair;
  let server: Server;
  let port: number;
  const received: { path: string; headers: IncomingHttpHeaders; body: Json }[] = [];
  beforeAll(async () => {
    pair = await startKithPair(engine);
    port = await freePort();
    server = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, body: JSON.parse(text) as Json });
        response.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await pair?.close();
  });

  it("delivers a Flag signed by the instance actor, naming the account and the posts, to the shared inbox", async () => {
    const { a } = pair;
    const reporter = await a.kith.createUser("reporter");
    const target = a.kith.ids.next("user");
    const now = a.kith.clock.now().toISOString();
    const remote = `http://127.0.0.1:${port}`;
    await a.kith.storage.db
      .insertInto("accounts")
      .values({ ...remoteAccountColumns("troll", port, now), id: target })
      .execute();
    await a.kith.services.flags.send({
      reporterId: reporter.account.id,
      targetAccountId: target,
      statusUris: [`${remote}/users/troll/statuses/1`],
      comment: "Spam",
    });
    const deliveries = await eventually(
      async () => received,
      (list) => list.length > 0,
    );
    const flag = deliveries[0]?.body as Json;
    expect(flag).toMatchObject({ type: "Flag", actor: `${a.origin}/users/instance.actor`, content: "Spam" });
    expect(flag.object).toEqual([`${remote}/users/troll`, `${remote}/users/troll/statuses/1`]);
    expect(deliveries[0]?.headers.signature ?? deliveries[0]?.headers["signature-input"]).toBeTruthy();
  });

  it("sends a profile update once per server, to its shared inbox, however many followers are there", async () => {
    const { a } = pair;
    const author = await a.kith.createUser("author");
    const now = a.kith.clock.now().toISOString();
    for (const name of ["one", "two"]) {
      const id = a.kith.ids.next("user");
      await a.kith.storage.db
        .insertInto("accounts")
        .values({
          ...remoteAccountColumns(name, port, now),
          id,
        })
        .execute();
      await a.kith.storage.db
        .insertInto("follows")
        .values({
          id: a.kith.ids.next("follow"),
          account_id: id,
          target_account_id: author.account.id,
          follower_local: false,
          uri: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    received.length = 0;
    expect(
      (await a.kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: author.token, json: { display_name: "Author" } }))
        .status,
    ).toBe(200);
    const updates = await eventually(
      async () => received.filter((delivery) => delivery.body.type === "Update"),
      (list) => list.length > 0,
    );
    expect(updates.map((delivery) => delivery.path)).toEqual(["/inbox"]);
    expect(updates[0]?.body.object).toMatchObject({ id: `${a.origin}/users/author`, name: "Author" });
  });

  it("refuses to flag a local account and an unknown one", async () => {
    const { a } = pair;
    const reporter = await a.kith.createUser("reporter2");
    const local = await a.kith.createUser("local");
    await expect(
      a.kith.services.flags.send({ reporterId: reporter.account.id, targetAccountId: local.account.id, statusUris: [], comment: "" }),
    ).rejects.toMatchObject({ code: "flag.local_target" });
    await expect(
      a.kith.services.flags.send({ reporterId: reporter.account.id, targetAccountId: "us_unknown", statusUris: [], comment: "" }),
    ).rejects.toMatchObject({ code: "account.not_found" });
  });
});
