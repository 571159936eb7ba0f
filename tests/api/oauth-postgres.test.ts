/**
 * The OAuth and session queries on PostgreSQL: timestamps compared as
 * timestamptz, rotation by UPDATE ... RETURNING, the code consumed once.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestKith, type TestKith } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { AUTHORIZATION_CODE_TTL_SECONDS } from "../../packages/core/src/services/oauth/oauth-service.js";
import { LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT, LOGIN_WINDOW_SECONDS } from "../../packages/core/src/services/oauth/rate-limits.js";
import { obtainCode, pkcePair, registerApp } from "../support/oauth.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

describeIfPostgres("OAuth on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let kith: TestKith;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    kith = await createTestKith({ storage: () => createPostgresStorage({ connectionString: database.url, max: 2 }) });
  });
  afterAll(async () => {
    await kith?.close();
    await database?.drop();
  });

  const grant = async (params: Record<string, string>) => {
    const response = await kith.request("POST", "/oauth/token", { form: params });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  };

  it("runs the code flow with PKCE once, refreshes, rate limits, and manages sessions", async () => {
    const app = await registerApp(kith, { redirectUris: "https://client.example/cb", scopes: "read write" });
    const user = await kith.createUser("pguser");
    const client = { client_id: app.client_id, client_secret: app.client_secret };
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(kith, app, { username: user.account.username, password: user.password }, {
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    const exchange = { grant_type: "authorization_code", ...client, code, redirect_uri: "https://client.example/cb", code_verifier: verifier };
    const first = await grant(exchange);
    expect(first.status).toBe(200);
    expect((await grant(exchange)).body.error).toBe("invalid_grant");

    const late = await obtainCode(kith, app, { username: user.account.username, password: user.password });
    kith.clock.advance(AUTHORIZATION_CODE_TTL_SECONDS * 1000 + 1000);
    expect((await grant({ ...exchange, code: late, code_verifier: "" })).body.error).toBe("invalid_grant");

    const refreshed = await grant({ grant_type: "refresh_token", ...client, refresh_token: first.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: first.body.access_token })).status).toBe(401);

    for (let i = 0; i < LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT; i++) {
      await grant({ grant_type: "password", ...client, username: user.account.username, password: "wrong-password" });
    }
    expect((await grant({ grant_type: "password", ...client, username: user.account.username, password: user.password })).status).toBe(429);
    kith.clock.advance(LOGIN_WINDOW_SECONDS * 1000);
    expect((await grant({ grant_type: "password", ...client, username: user.account.username, password: user.password })).status).toBe(200);

    const token = refreshed.body.access_token as string;
    expect((await kith.request("POST", "/api/v1/sessions/revoke-others", { token })).status).toBe(200);
    const purged = await kith.request("POST", "/api/v1/sessions/purge", { token });
    expect(await purged.json()).toEqual({ deleted: 2 });
    const sessions = (await (await kith.request("GET", "/api/v1/sessions", { token })).json()) as Array<{ current: boolean }>;
    expect(sessions).toEqual([expect.objectContaining({ current: true })]);
  });
});
