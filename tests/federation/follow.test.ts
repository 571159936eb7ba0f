/**
 * The social graph between two Kith server processes over HTTPS, driven by
 * their Mastodon APIs as clients drive them: a follow of an open account is
 * accepted, a locked account's request is authorized and the Accept reaches
 * the follower, profile updates, blocks and their undo, unfollow, and an
 * account move that takes its followers along, and a follow refused because
 * the account blocks the follower's domain. One federation for the file:
 * starting server processes is the slow part.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { accountWithToken, call, eventually } from "../support/federation-api.js";
import { describeOnEngines } from "../support/engines.js";
import { type Federation, type TestInstance, startFederation } from "../support/federation-harness.js";

type Json = Record<string, unknown>;

async function relationship(instance: TestInstance, token: string, id: string): Promise<Json> {
  const response = await call(instance, token, "GET", `/api/v1/accounts/relationships?id[]=${id}`);
  return (response.body as Json[])[0] as Json;
}

async function resolve(instance: TestInstance, token: string, handle: string): Promise<string> {
  const response = await call(instance, token, "GET", `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`);
  const accounts = (response.body as { accounts: Json[] }).accounts;
  expect(accounts).toHaveLength(1);
  return (accounts[0] as Json).id as string;
}

async function totalItems(instance: TestInstance, path: string): Promise<number> {
  const response = await instance.request("GET", path, { headers: { accept: "application/activity+json" } });
  return Number((response.body as { totalItems?: number }).totalItems ?? -1);
}

describeOnEngines("the social graph between two server processes", (engine) => {
  let net: Federation;
  let a: TestInstance;
  let b: TestInstance;
  const tokens: Record<string, string> = {};
  const passwords: Record<string, string> = {};
  beforeAll(async () => {
    net = await startFederation(2, {}, engine.name);
    [a, b] = net.instances as [TestInstance, TestInstance];
    // One account at a time per server: each is made by a separate process writing the same database.
    const onB = async () => {
      for (const name of ["bob", "carol", "dave", "erin", "frank"]) Object.assign(made, { [name]: await accountWithToken(b, name) });
    };
    const made: Record<string, { token: string; password: string }> = {};
    await Promise.all([accountWithToken(a, "alice").then((alice) => Object.assign(made, { alice })), onB()]);
    for (const [name, { token, password }] of Object.entries(made)) {
      tokens[name] = token;
      passwords[name] = password;
    }
  }, 180_000);
  afterAll(async () => {
    await net?.stop();
  });

  it("follows an open account by API: requested until the Accept arrives; B lists the follower", async () => {
    const bob = await resolve(a, tokens.alice as string, `@bob@${b.host}`);
    const followed = await call(a, tokens.alice as string, "POST", `/api/v1/accounts/${bob}/follow`);
    expect(followed.body).toMatchObject({ requested: true, following: false });
    const after = await eventually(
      () => relationship(a, tokens.alice as string, bob),
      (rel) => rel.following === true,
    );
    expect(after).toMatchObject({ following: true, requested: false });
    expect(await totalItems(b, "/users/bob/followers")).toBe(1);
    expect(await totalItems(a, "/users/alice/following")).toBe(1);
  }, 90_000);

  it("asks a locked account; its authorize sends Accept, which makes the follow", async () => {
    expect((await call(b, tokens.carol as string, "PATCH", "/api/v1/accounts/update_credentials", { locked: true })).status).toBe(200);
    const carol = await resolve(a, tokens.alice as string, `@carol@${b.host}`);
    expect((await call(a, tokens.alice as string, "POST", `/api/v1/accounts/${carol}/follow`)).body).toMatchObject({ requested: true });
    const requests = await eventually(
      async () => (await call(b, tokens.carol as string, "GET", "/api/v1/follow_requests")).body as Json[],
      (list) => list.length === 1,
    );
    expect(requests.map((account) => account.acct)).toEqual([`alice@${a.host}`]);
    expect((await relationship(a, tokens.alice as string, carol)).following).toBe(false);
    const authorized = await call(b, tokens.carol as string, "POST", `/api/v1/follow_requests/${(requests[0] as Json).id}/authorize`);
    expect(authorized.status).toBe(200);
    const after = await eventually(
      () => relationship(a, tokens.alice as string, carol),
      (rel) => rel.following === true,
    );
    expect(after).toMatchObject({ following: true, requested: false });
  }, 90_000);

  it("unfollows: Undo(Follow) removes the follower on the other side", async () => {
    const carol = await resolve(a, tokens.alice as string, `@carol@${b.host}`);
    expect((await call(a, tokens.alice as string, "POST", `/api/v1/accounts/${carol}/unfollow`)).body).toMatchObject({ following: false });
    expect(
      await eventually(
        () => totalItems(b, "/users/carol/followers"),
        (n) => n === 0,
      ),
    ).toBe(0);
  }, 90_000);

  it("sends a profile update: the follower's server shows the new display name", async () => {
    const bob = await resolve(a, tokens.alice as string, `@bob@${b.host}`);
    expect((await call(b, tokens.bob as string, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Robert" })).status).toBe(
      200,
    );
    const seen = await eventually(
      async () => (await call(a, tokens.alice as string, "GET", `/api/v1/accounts/${bob}`)).body as Json,
      (account) => account.display_name === "Robert",
    );
    expect(seen.display_name).toBe("Robert");
  }, 90_000);

  it("blocks: the blocked side loses the follow and sees blocked_by; unblock lifts it", async () => {
    const bob = await resolve(a, tokens.alice as string, `@bob@${b.host}`);
    const alice = await resolve(b, tokens.bob as string, `@alice@${a.host}`);
    expect((await call(b, tokens.bob as string, "POST", `/api/v1/accounts/${alice}/block`)).status).toBe(200);
    const blocked = await eventually(
      () => relationship(a, tokens.alice as string, bob),
      (rel) => rel.blocked_by === true,
    );
    expect(blocked).toMatchObject({ blocked_by: true, following: false });
    expect(await totalItems(a, "/users/alice/following")).toBe(0);
    expect((await call(b, tokens.bob as string, "POST", `/api/v1/accounts/${alice}/unblock`)).status).toBe(200);
    const lifted = await eventually(
      () => relationship(a, tokens.alice as string, bob),
      (rel) => rel.blocked_by === false,
    );
    expect(lifted.blocked_by).toBe(false);
  }, 90_000);

  it("moves an account: Move reaches the follower's server, which follows the new account", async () => {
    const dave = await resolve(a, tokens.alice as string, `@dave@${b.host}`);
    await call(a, tokens.alice as string, "POST", `/api/v1/accounts/${dave}/follow`);
    await eventually(
      () => relationship(a, tokens.alice as string, dave),
      (rel) => rel.following === true,
    );
    expect((await call(b, tokens.erin as string, "POST", "/api/v1/accounts/aliases", { acct: `dave@${b.host}` })).status).toBe(200);
    const moved = await call(b, tokens.dave as string, "POST", "/api/v1/accounts/migration", {
      acct: "erin",
      current_password: passwords.dave,
    });
    expect(moved.status).toBe(200);
    const old = await eventually(
      async () => (await call(a, tokens.alice as string, "GET", `/api/v1/accounts/${dave}`)).body as Json,
      (account) => Boolean(account.moved),
    );
    const erin = old.moved as Json;
    expect(erin.acct).toBe(`erin@${b.host}`);
    const now = await eventually(
      () => relationship(a, tokens.alice as string, erin.id as string),
      (rel) => rel.following === true,
    );
    expect(now.following).toBe(true);
    expect((await relationship(a, tokens.alice as string, dave)).following).toBe(false);
  }, 90_000);

  it("rejects a follow from a domain the account blocks: no follower on B, no follow on A", async () => {
    // Test servers live at localhost:<port>; a domain block through the API takes domain names without a port.
    const storage = b.openStorage();
    try {
      const frankRow = await storage.db
        .selectFrom("accounts")
        .select("id")
        .where("username", "=", "frank")
        .where("domain", "is", null)
        .executeTakeFirstOrThrow();
      await storage.db
        .insertInto("account_domain_blocks")
        .values({ id: "ub_0000000000000000000000fed1", account_id: frankRow.id, domain: a.host, created_at: new Date().toISOString() })
        .execute();
    } finally {
      await storage.close();
    }
    const frank = await resolve(a, tokens.alice as string, `@frank@${b.host}`);
    expect((await call(a, tokens.alice as string, "POST", `/api/v1/accounts/${frank}/follow`)).body).toMatchObject({ requested: true });
    const after = await eventually(
      () => relationship(a, tokens.alice as string, frank),
      (rel) => rel.requested === false,
    );
    expect(after).toMatchObject({ following: false, requested: false });
    expect(await totalItems(b, "/users/frank/followers")).toBe(0);
  }, 90_000);

  it("an Undo from the other server takes the notification of what it undoes: a favourite, a boost", async () => {
    const gina = await accountWithToken(b, "gina");
    const types = async () =>
      ((await call(b, gina.token, "GET", "/api/v1/notifications")).body as Json[]).map((notification) => notification.type).sort();
    const posted = (await call(b, gina.token, "POST", "/api/v1/statuses", { status: "undo me", visibility: "public" })).body as Json;
    const search = `/api/v2/search?q=${encodeURIComponent(String(posted.uri))}&resolve=true&type=statuses`;
    const found = ((await call(a, tokens.alice as string, "GET", search)).body as { statuses: Json[] }).statuses;
    const onA = (found[0] as Json).id as string;
    await call(a, tokens.alice as string, "POST", `/api/v1/statuses/${onA}/favourite`);
    await call(a, tokens.alice as string, "POST", `/api/v1/statuses/${onA}/reblog`);
    expect(await eventually(types, (seen) => seen.length === 2)).toEqual(["favourite", "reblog"]);

    await call(a, tokens.alice as string, "POST", `/api/v1/statuses/${onA}/unfavourite`);
    expect(await eventually(types, (seen) => seen.length === 1)).toEqual(["reblog"]);
    await call(a, tokens.alice as string, "POST", `/api/v1/statuses/${onA}/unreblog`);
    expect(await eventually(types, (seen) => seen.length === 0)).toEqual([]);
    const unread = (await call(b, gina.token, "GET", "/api/v1/notifications/unread_count")).body as Json;
    expect(unread.count).toBe(0);
  }, 90_000);
});
