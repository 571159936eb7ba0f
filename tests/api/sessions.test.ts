import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { type RegisteredApp, registerApp } from "../support/oauth.js";
import { describeOnEngines } from "../support/engines.js";

const ME = "/api/v1/accounts/verify_credentials";

interface SessionJson {
  id: string;
  app_name: string | null;
  user_agent: string | null;
  ip: string | null;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  current: boolean;
}

describeOnEngines("sessions", (engine) => {
  let kith: TestKith;
  let app: RegisteredApp;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    app = await registerApp(kith, { name: "Phone app", scopes: "read write" });
  });
  afterAll(() => kith.close());

  /** A user signed in twice through the password grant: two sessions, from two devices. */
  async function userWithTwoSessions(): Promise<{ username: string; tokens: [string, string] }> {
    const user = await kith.createUser(`sess${++serial}`);
    // The helper's own session would be a third one; these tests count exactly two devices.
    await kith.storage.db.deleteFrom("sessions").where("account_id", "=", user.account.id).execute();
    const tokens: string[] = [];
    for (const [agent, ip] of [
      ["Laptop/1.0", "198.51.100.1"],
      ["Phone/2.0", "198.51.100.2"],
    ] as const) {
      const response = await kith.request("POST", "/oauth/token", {
        form: {
          grant_type: "password",
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: user.account.username,
          password: user.password,
          scope: "read write",
        },
        headers: { "user-agent": agent },
        clientIp: ip,
      });
      tokens.push((await response.json()).access_token);
    }
    return { username: user.account.username, tokens: tokens as [string, string] };
  }

  async function list(token: string): Promise<SessionJson[]> {
    const response = await kith.request("GET", "/api/v1/sessions", { token });
    expect(response.status).toBe(200);
    return (await response.json()) as SessionJson[];
  }

  it("lists the caller's sessions with app, device, address, times, and which is current", async () => {
    const { tokens } = await userWithTwoSessions();
    await kith.request("GET", ME, { token: tokens[1] });
    const sessions = await list(tokens[0]);
    expect(sessions).toHaveLength(2);
    const current = sessions.find((session) => session.current);
    const other = sessions.find((session) => !session.current);
    expect(current).toMatchObject({ app_name: "Phone app", user_agent: "Laptop/1.0", ip: "198.51.100.1", scopes: ["read", "write"] });
    expect(other).toMatchObject({
      id: expect.stringMatching(/^se_/),
      user_agent: "Phone/2.0",
      ip: "198.51.100.2",
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      revoked_at: null,
    });
  });

  it("shows only the caller's own sessions", async () => {
    const first = await userWithTwoSessions();
    const second = await userWithTwoSessions();
    const ids = new Set((await list(second.tokens[0])).map((session) => session.id));
    for (const session of await list(first.tokens[0])) expect(ids.has(session.id)).toBe(false);
  });

  it("revokes another session at once, and refuses the current one with 409", async () => {
    const { tokens } = await userWithTwoSessions();
    const sessions = await list(tokens[0]);
    const current = sessions.find((session) => session.current) as SessionJson;
    const other = sessions.find((session) => !session.current) as SessionJson;

    const refused = await kith.request("DELETE", `/api/v1/sessions/${current.id}`, { token: tokens[0] });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: "session.current" });

    const revoked = await kith.request("DELETE", `/api/v1/sessions/${other.id}`, { token: tokens[0] });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id: other.id, revoked_at: expect.any(String), current: false });
    expect((await kith.request("GET", ME, { token: tokens[1] })).status).toBe(401);
    expect((await kith.request("GET", ME, { token: tokens[0] })).status).toBe(200);
  });

  it("answers 404 for another user's session, an unknown one, and a malformed id", async () => {
    const mine = await userWithTwoSessions();
    const theirs = await userWithTwoSessions();
    const theirSession = (await list(theirs.tokens[0]))[0] as SessionJson;
    for (const path of [`/api/v1/sessions/${theirSession.id}`, `/api/v1/sessions/${theirSession.id}/record`]) {
      const response = await kith.request("DELETE", path, { token: mine.tokens[0] });
      expect(response.status, path).toBe(404);
    }
    expect((await kith.request("GET", ME, { token: theirs.tokens[0] })).status).toBe(200);
    expect((await kith.request("DELETE", "/api/v1/sessions/se_00000000000000000000000000", { token: mine.tokens[0] })).status).toBe(404);
    expect((await kith.request("DELETE", "/api/v1/sessions/nope", { token: mine.tokens[0] })).status).toBe(404);
  });

  it("revokes every other session and keeps the current one", async () => {
    const { tokens } = await userWithTwoSessions();
    const response = await kith.request("POST", "/api/v1/sessions/revoke-others", { token: tokens[0] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ revoked: 1 });
    expect((await kith.request("GET", ME, { token: tokens[1] })).status).toBe(401);
    expect((await kith.request("GET", ME, { token: tokens[0] })).status).toBe(200);
  });

  it("deletes the record of a revoked session, never the current one", async () => {
    const { tokens } = await userWithTwoSessions();
    const sessions = await list(tokens[0]);
    const current = sessions.find((session) => session.current) as SessionJson;
    const other = sessions.find((session) => !session.current) as SessionJson;
    await kith.request("DELETE", `/api/v1/sessions/${other.id}`, { token: tokens[0] });
    const refused = await kith.request("DELETE", `/api/v1/sessions/${current.id}/record`, { token: tokens[0] });
    expect(refused.status).toBe(409);
    const deleted = await kith.request("DELETE", `/api/v1/sessions/${other.id}/record`, { token: tokens[0] });
    expect(deleted.status).toBe(204);
    expect((await list(tokens[0])).map((session) => session.id)).toEqual([current.id]);
  });

  it("deleting the record of a live session ends it too", async () => {
    const { tokens } = await userWithTwoSessions();
    const other = (await list(tokens[0])).find((session) => !session.current) as SessionJson;
    expect((await kith.request("DELETE", `/api/v1/sessions/${other.id}/record`, { token: tokens[0] })).status).toBe(204);
    expect((await kith.request("GET", ME, { token: tokens[1] })).status).toBe(401);
  });

  it("purges the records of revoked sessions and keeps live ones", async () => {
    const { username, tokens } = await userWithTwoSessions();
    const third = await kith.services.sessions.issue({
      accountId: (await kith.services.accounts.findByUsername(username)).id,
      scopes: ["read"],
    });
    await kith.request("POST", "/api/v1/sessions/revoke-others", { token: tokens[0] });
    const fourth = await kith.services.sessions.issue({
      accountId: (await kith.services.accounts.findByUsername(username)).id,
      scopes: ["read"],
    });
    const response = await kith.request("POST", "/api/v1/sessions/purge", { token: tokens[0] });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ deleted: 2 });
    const left = (await list(tokens[0])).map((session) => session.id).sort();
    expect(left).toEqual([fourth.sessionId, (await list(tokens[0])).find((session) => session.current)?.id].sort());
    expect(left).not.toContain(third.sessionId);
  });

  it("refuses app tokens and guests", async () => {
    const granted = await kith.request("POST", "/oauth/token", {
      form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret },
    });
    const appToken = (await granted.json()).access_token as string;
    expect((await kith.request("GET", "/api/v1/sessions", { token: appToken })).status).toBe(401);
    expect((await kith.request("GET", "/api/v1/sessions")).status).toBe(401);
  });
});
