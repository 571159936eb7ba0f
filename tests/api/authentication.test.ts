import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

const ME = "/api/v1/accounts/verify_credentials";

describeOnEngines("authentication", (engine) => {
  let kith: TestKith;
  let serial = 0;
  /** A fresh user for each test, so changes to one do not leak into another. */
  const freshUser = (options: { scopes?: readonly string[] } = {}) => kith.createUser(`user${++serial}`, options);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function expectUnauthenticated(response: Response): Promise<void> {
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: expect.any(String), code: "auth.unauthenticated" });
  }

  it("accepts a bearer token in the Authorization header", async () => {
    const user = await freshUser();
    const response = await kith.request("GET", ME, { token: user.token });
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(user.account.id);
  });

  it("accepts the Bearer scheme in any letter case", async () => {
    const user = await freshUser();
    const response = await kith.request("GET", ME, { headers: { authorization: `bearer ${user.token}` } });
    expect(response.status).toBe(200);
  });

  it("accepts a token in the access_token query parameter", async () => {
    const user = await freshUser();
    const response = await kith.request("GET", `${ME}?access_token=${encodeURIComponent(user.token)}`);
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(user.account.id);
  });

  it("refuses a route that needs credentials without any with 401", async () => {
    await expectUnauthenticated(await kith.request("GET", ME));
  });

  it("refuses an unknown token even on a public route", async () => {
    await expectUnauthenticated(await kith.request("GET", "/api/v1/instance", { token: "not-a-real-token" }));
  });

  it("refuses an unknown token in the query even on a public route", async () => {
    await expectUnauthenticated(await kith.request("GET", "/api/v1/instance?access_token=not-a-real-token"));
  });

  it("refuses an Authorization header that is not a bearer token", async () => {
    const user = await freshUser();
    await expectUnauthenticated(await kith.request("GET", ME, { headers: { authorization: `Basic ${user.token}` } }));
  });

  it("refuses an expired session", async () => {
    const user = await freshUser();
    const session = await kith.services.sessions.issue({ accountId: user.account.id, scopes: ["read"], expiresInSeconds: 60 });
    expect((await kith.request("GET", ME, { token: session.accessToken })).status).toBe(200);
    kith.clock.advance(60_000);
    await expectUnauthenticated(await kith.request("GET", ME, { token: session.accessToken }));
  });

  it("refuses a revoked session", async () => {
    const user = await freshUser();
    await kith.storage.db
      .updateTable("sessions")
      .set({ revoked_at: kith.clock.now().toISOString() })
      .where("account_id", "=", user.account.id)
      .execute();
    await expectUnauthenticated(await kith.request("GET", ME, { token: user.token }));
  });

  it("refuses the token of a suspended account", async () => {
    const user = await freshUser();
    await kith.storage.db
      .updateTable("accounts")
      .set({ suspended_at: kith.clock.now().toISOString() })
      .where("id", "=", user.account.id)
      .execute();
    await expectUnauthenticated(await kith.request("GET", ME, { token: user.token }));
  });

  it("refuses the token of a disabled account", async () => {
    const user = await freshUser();
    await kith.services.accounts.modify(user.account.username, { disable: true });
    await expectUnauthenticated(await kith.request("GET", ME, { token: user.token }));
  });

  it("refuses the token of an account awaiting approval", async () => {
    const user = await freshUser();
    await kith.storage.db.updateTable("users").set({ approved: false }).where("account_id", "=", user.account.id).execute();
    await expectUnauthenticated(await kith.request("GET", ME, { token: user.token }));
  });

  it("refuses a token without the route's scope with 403 auth.insufficient_scope", async () => {
    const user = await freshUser({ scopes: ["write", "follow"] });
    const response = await kith.request("GET", ME, { token: user.token });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "auth.insufficient_scope" });
  });

  it("accepts a token with a parent of the route's scope", async () => {
    const user = await freshUser({ scopes: ["read"] });
    expect((await kith.request("GET", ME, { token: user.token })).status).toBe(200);
  });

  it("refuses a client_credentials token without a user on a signed-in route", async () => {
    const appId = kith.ids.next("app");
    await kith.storage.db
      .insertInto("oauth_apps")
      .values({
        id: appId,
        name: "Bot",
        website: null,
        redirect_uris: "[]",
        scopes: "read",
        client_id: appId,
        client_secret_hash: "x",
        created_at: kith.clock.now().toISOString(),
      })
      .execute();
    const app = await kith.services.sessions.issue({ accountId: null, appId, scopes: ["read"] });
    expect((await kith.request("GET", "/api/v1/instance", { token: app.accessToken })).status).toBe(200);
    await expectUnauthenticated(await kith.request("GET", ME, { token: app.accessToken }));
  });
});
