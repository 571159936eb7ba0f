import { afterAll, beforeAll, expect, it } from "vitest";
import { MemoryPubSub } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { SESSION_CACHE_TTL_MS } from "../../packages/core/src/modules/auth/session-service.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";

const ME = "/api/v1/accounts/verify_credentials";

/**
 * Two servers on one database and one pubsub, as two processes of one
 * instance are. What one keeps between requests (a token's session, a
 * reader's filters) must stop answering there as soon as the other changes it.
 */
describeOnEngines("rows kept between requests, across two processes", (engine) => {
  let database: EngineDatabase;
  let first: TestKith;
  let second: TestKith;
  let admin: TestUser;
  let serial = 0;

  beforeAll(async () => {
    database = await engine.database();
    const pubsub = new MemoryPubSub();
    first = await database.testKith({ pubsub });
    second = await database.testKith({ pubsub });
    admin = await first.createUser("cache_admin", { role: "Admin" });
    // A server listens for changes from its first signed-in request on; what it read before that, it does not keep.
    for (const server of [first, second]) expect((await server.request("GET", ME, { token: admin.token })).status).toBe(200);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  /** A user whose token the second server has answered for, and so keeps. */
  async function keptBySecond(): Promise<TestUser> {
    const user = await first.createUser(`cache${++serial}`);
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(200);
    return user;
  }

  it("keeps a session: a change nothing announces is seen once the kept session expires", async () => {
    const user = await keptBySecond();
    // Written by hand, as no service would: nothing tells the servers.
    await first.storage.db
      .updateTable("users")
      .set({ disabled_at: new Date().toISOString() })
      .where("account_id", "=", user.account.id)
      .execute();
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(200);
    second.clock.advance(SESSION_CACHE_TTL_MS);
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(401);
  });

  it("refuses at once a session revoked through the other server", async () => {
    const user = await keptBySecond();
    const other = await first.services.sessions.issue({ accountId: user.account.id, scopes: ["read"] });
    const sessions = (await (await first.request("GET", "/api/v1/sessions", { token: other.accessToken })).json()) as {
      id: string;
      current: boolean;
    }[];
    const kept = sessions.find((session) => !session.current && session.id !== other.sessionId);
    expect(kept).toBeDefined();
    expect((await first.request("DELETE", `/api/v1/sessions/${kept?.id}`, { token: other.accessToken })).status).toBe(200);
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(401);
    expect((await second.request("GET", ME, { token: other.accessToken })).status).toBe(200);
  });

  it("refuses at once the sessions of an account suspended or disabled through the other server", async () => {
    for (const type of ["suspend", "disable"]) {
      const user = await keptBySecond();
      const acted = await first.request("POST", `/api/v1/admin/accounts/${user.account.id}/action`, { token: admin.token, json: { type } });
      expect(acted.status).toBe(200);
      expect((await second.request("GET", ME, { token: user.token })).status).toBe(401);
    }
  });

  it("refuses at once the sessions of an account disabled from the command line's service", async () => {
    const user = await keptBySecond();
    await first.services.accounts.modify(user.account.username, { disable: true });
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(401);
  });

  it("refuses at once the sessions a password set by an administrator ends", async () => {
    const user = await keptBySecond();
    const set = await first.request("POST", `/api/v1/admin/accounts/${user.account.id}/password`, { token: admin.token, json: {} });
    expect(set.status).toBe(200);
    expect((await second.request("GET", ME, { token: user.token })).status).toBe(401);
  });

  it("applies at once filters made and removed through the other server", async () => {
    const reader = await first.createUser(`cache${++serial}`);
    const author = await first.createUser(`cache${++serial}`);
    expect((await first.request("POST", `/api/v1/accounts/${author.account.id}/follow`, { token: reader.token })).status).toBe(200);
    const posted = await first.request("POST", "/api/v1/statuses", { token: author.token, json: { status: "A pineapple pizza" } });
    expect(posted.status).toBe(200);
    const { id } = (await posted.json()) as { id: string };
    const home = async (): Promise<string[]> => {
      const response = await second.request("GET", "/api/v1/timelines/home", { token: reader.token });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: string }[]).map((status) => status.id);
    };
    expect(await home()).toContain(id);
    const made = await first.request("POST", "/api/v2/filters", {
      token: reader.token,
      json: { title: "Fruit", context: ["home"], filter_action: "hide", keywords_attributes: [{ keyword: "pineapple" }] },
    });
    expect(made.status).toBe(200);
    expect(await home()).not.toContain(id);
    const filter = (await made.json()) as { id: string };
    expect((await first.request("DELETE", `/api/v2/filters/${filter.id}`, { token: reader.token })).status).toBe(200);
    expect(await home()).toContain(id);
  });
});
