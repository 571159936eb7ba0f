import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { AUTHORIZATION_CODE_TTL_SECONDS } from "../../packages/core/src/modules/auth/oauth-service.js";
import {
  LOGIN_ACCOUNT_WINDOW_SECONDS,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_IP,
  LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT,
  LOGIN_WINDOW_SECONDS,
} from "../../packages/core/src/modules/auth/oauth-rate-limits.js";
import {
  OOB,
  type RegisteredApp,
  authorizeQuery,
  obtainCode,
  openAuthorizePage,
  pkcePair,
  registerApp,
  submitAuthorizeForm,
} from "../support/oauth.js";
import { describeOnEngines } from "../support/engines.js";

const CALLBACK = "https://client.example/callback";
const ME = "/api/v1/accounts/verify_credentials";

describeOnEngines("OAuth", (engine) => {
  let kith: TestKith;
  let serial = 0;
  let ipSerial = 0;
  const freshUser = () => kith.createUser(`oauth${++serial}`);
  /** Each test signs in from its own address, so the per-address limit of one test does not leak into another. */
  const freshIp = () => `10.0.${Math.floor(++ipSerial / 250)}.${ipSerial % 250}`;

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function token(
    params: Record<string, string>,
    options: { json?: boolean; clientIp?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await kith.request("POST", "/oauth/token", {
      ...(options.json ? { json: params } : { form: params }),
      clientIp: options.clientIp ?? freshIp(),
      ...(options.headers && { headers: options.headers }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  }

  const passwordGrant = (app: RegisteredApp, username: string, password: string, extra: Record<string, string> = {}, clientIp?: string) =>
    token(
      { grant_type: "password", client_id: app.client_id, client_secret: app.client_secret, username, password, ...extra },
      clientIp ? { clientIp } : {},
    );

  const exchange = (app: RegisteredApp, code: string, extra: Record<string, string> = {}) =>
    token({
      grant_type: "authorization_code",
      client_id: app.client_id,
      client_secret: app.client_secret,
      code,
      redirect_uri: app.redirect_uris[0] as string,
      ...extra,
    });

  describe("apps", () => {
    it("registers an app as Mastodon's CredentialApplication and stores only a hash of the secret", async () => {
      const response = await kith.request("POST", "/api/v1/apps", {
        form: {
          client_name: "Tusky",
          redirect_uris: `${CALLBACK}\n${OOB}`,
          scopes: "read write follow push",
          website: "https://tusky.app",
        },
      });
      expect(response.status).toBe(200);
      const app = await response.json();
      expect(app).toEqual({
        id: expect.stringMatching(/^ap_/),
        name: "Tusky",
        website: "https://tusky.app",
        scopes: ["read", "write", "follow", "push"],
        redirect_uri: `${CALLBACK}\n${OOB}`,
        redirect_uris: [CALLBACK, OOB],
        client_id: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        client_secret_expires_at: 0,
        vapid_key: expect.any(String),
      });
      const row = await kith.storage.db.selectFrom("oauth_apps").selectAll().where("id", "=", app.id).executeTakeFirstOrThrow();
      expect(row.client_secret_hash).not.toContain(app.client_secret);
      expect(row.client_secret_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it("accepts redirect_uris as an array and defaults scopes to read", async () => {
      const response = await kith.request("POST", "/api/v1/apps", { json: { client_name: "Array", redirect_uris: [CALLBACK, OOB] } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ scopes: ["read"], redirect_uris: [CALLBACK, OOB], website: null });
    });

    it("refuses unknown scopes, bad redirect URIs and a missing name with 422", async () => {
      const unknownScope = await kith.request("POST", "/api/v1/apps", {
        json: { client_name: "x", redirect_uris: OOB, scopes: "read rule:all" },
      });
      expect(unknownScope.status).toBe(422);
      expect(await unknownScope.json()).toMatchObject({ code: "oauth.invalid_scope" });
      for (const uri of ["javascript:alert(1)", "not a uri", "https://client.example/cb#frag", ""]) {
        const response = await kith.request("POST", "/api/v1/apps", { json: { client_name: "x", redirect_uris: uri } });
        expect(response.status, uri).toBe(422);
      }
      const noName = await kith.request("POST", "/api/v1/apps", { json: { redirect_uris: OOB } });
      expect(noName.status).toBe(422);
    });

    it("verifies an app token and a user token, and refuses none", async () => {
      const app = await registerApp(kith, { scopes: "read write" });
      const appToken = await token({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret });
      const byApp = await kith.request("GET", "/api/v1/apps/verify_credentials", { token: appToken.body.access_token as string });
      expect(byApp.status).toBe(200);
      expect(await byApp.json()).toEqual({
        id: app.id,
        name: "Test app",
        website: null,
        scopes: ["read", "write"],
        redirect_uri: OOB,
        redirect_uris: [OOB],
        vapid_key: expect.any(String),
      });
      const user = await freshUser();
      const userToken = await passwordGrant(app, user.account.username, user.password);
      const byUser = await kith.request("GET", "/api/v1/apps/verify_credentials", { token: userToken.body.access_token as string });
      expect(byUser.status).toBe(200);
      expect((await byUser.json()).id).toBe(app.id);
      expect((await kith.request("GET", "/api/v1/apps/verify_credentials")).status).toBe(401);
    });
  });

  it("serves the authorization server metadata", async () => {
    const response = await kith.request("GET", "/.well-known/oauth-authorization-server");
    expect(response.status).toBe(200);
    const metadata = await response.json();
    expect(metadata).toMatchObject({
      issuer: "https://kith.test/",
      authorization_endpoint: "https://kith.test/oauth/authorize",
      token_endpoint: "https://kith.test/oauth/token",
      revocation_endpoint: "https://kith.test/oauth/revoke",
      app_registration_endpoint: "https://kith.test/api/v1/apps",
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: expect.arrayContaining(["client_secret_post"]),
    });
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(["authorization_code", "client_credentials", "refresh_token", "password"]),
    );
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["read", "write", "admin:read", "admin:write:accounts", "profile"]));
  });

  describe("authorize page", () => {
    it("shows the app's name and the scopes asked for, with a CSRF cookie matching the form", async () => {
      const app = await registerApp(kith, { name: "Elk <script>", scopes: "read write" });
      const page = await openAuthorizePage(kith, authorizeQuery(app, { scope: "read write", state: "xyz" }));
      expect(page.response.status).toBe(200);
      expect(page.response.headers.get("content-type")).toContain("text/html");
      expect(page.response.headers.get("x-frame-options")).toBe("DENY");
      expect(page.html).toContain("Elk &lt;script&gt;");
      // The app name is escaped; the only script is the page's own passkey button.
      expect(page.html).not.toContain("Elk <script>");
      expect(page.html).toContain("read");
      expect(page.html).toContain("write");
      expect(page.response.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict; Secure/);
      expect(page.cookie.split("=")[1]).toBe(page.fields.csrf_token);
      expect(page.fields).toMatchObject({ client_id: app.client_id, state: "xyz", scope: "read write" });
    });

    it("refuses an unknown client or an unregistered redirect URI with a page, never a redirect", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const unknown = await kith.request("GET", `/oauth/authorize?${authorizeQuery({ ...app, client_id: "nope" })}`);
      expect(unknown.status).toBe(400);
      const elsewhere = await kith.request("GET", `/oauth/authorize?${authorizeQuery(app, { redirect_uri: "https://evil.example/" })}`);
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.headers.get("location")).toBeNull();
    });

    it("sends invalid_scope to the client when the scopes are not a subset of the app's", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK, scopes: "read" });
      const response = await kith.request("GET", `/oauth/authorize?${authorizeQuery(app, { scope: "read write", state: "s1" })}`);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(location.origin + location.pathname).toBe(CALLBACK);
      expect(location.searchParams.get("error")).toBe("invalid_scope");
      expect(location.searchParams.get("state")).toBe("s1");
    });

    it("accepts a granular scope that a registered top-level scope covers", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK, scopes: "read write" });
      const page = await openAuthorizePage(kith, authorizeQuery(app, { scope: "read:accounts write:statuses" }));
      expect(page.response.status).toBe(200);
    });

    it("refuses the plain PKCE method and a missing method", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const { verifier } = pkcePair();
      const cases: Array<Record<string, string>> = [
        { code_challenge: verifier, code_challenge_method: "plain" },
        { code_challenge: verifier },
      ];
      for (const extra of cases) {
        const response = await kith.request("GET", `/oauth/authorize?${authorizeQuery(app, extra)}`);
        expect(response.status).toBe(302);
        expect(new URL(response.headers.get("location") as string).searchParams.get("error")).toBe("invalid_request");
      }
    });

    it("refuses a form without the CSRF cookie, or with a token that does not match it", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const page = await openAuthorizePage(kith, authorizeQuery(app));
      const credentials = { username: user.account.username, password: user.password };
      const noCookie = await submitAuthorizeForm(kith, { cookie: "", fields: page.fields }, credentials);
      expect(noCookie.status).toBe(403);
      expect(noCookie.headers.get("location")).toBeNull();
      const otherPage = await openAuthorizePage(kith, authorizeQuery(app));
      const mismatched = await submitAuthorizeForm(kith, { cookie: otherPage.cookie, fields: page.fields }, credentials);
      expect(mismatched.status).toBe(403);
      const matching = await submitAuthorizeForm(kith, page, credentials);
      expect(matching.status).toBe(302);
    });

    it("re-shows the form on a wrong password, and refuses an account that cannot sign in", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const page = await openAuthorizePage(kith, authorizeQuery(app));
      const wrong = await submitAuthorizeForm(
        kith,
        page,
        { username: user.account.username, password: "wrong-password" },
        { clientIp: freshIp() },
      );
      expect(wrong.status).toBe(422);
      expect(await wrong.text()).toContain("Invalid username, email or password");
      await kith.services.accounts.modify(user.account.username, { disable: true });
      const disabled = await submitAuthorizeForm(kith, page, { username: user.account.username, password: user.password });
      expect(disabled.status).toBe(403);
      expect(disabled.headers.get("location")).toBeNull();
    });

    it("sends access_denied with the state when the user denies", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const page = await openAuthorizePage(kith, authorizeQuery(app, { state: "st" }));
      const response = await submitAuthorizeForm(kith, page, { decision: "deny" });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(location.searchParams.get("error")).toBe("access_denied");
      expect(location.searchParams.get("state")).toBe("st");
    });

    it("shows the code on a page for out-of-band clients", async () => {
      const app = await registerApp(kith, { redirectUris: OOB });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.email, password: user.password });
      const exchanged = await exchange(app, code);
      expect(exchanged.status).toBe(200);
    });
  });

  describe("authorization_code grant", () => {
    it("redirects with the code and state, and exchanges the code for a token of the user", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK, scopes: "read write" });
      const user = await freshUser();
      const page = await openAuthorizePage(kith, authorizeQuery(app, { state: "abc", scope: "read write" }));
      const response = await submitAuthorizeForm(kith, page, { username: user.account.username, password: user.password });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(location.searchParams.get("state")).toBe("abc");
      const code = location.searchParams.get("code") as string;
      const stored = await kith.storage.db.selectFrom("one_time_secrets").selectAll().where("kind", "=", "oauth.code").execute();
      expect(stored.some((row) => row.secret_hash.includes(code))).toBe(false);

      const granted = await exchange(app, code);
      expect(granted.status).toBe(200);
      expect(granted.headers.get("cache-control")).toBe("no-store");
      expect(granted.body).toEqual({
        access_token: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
        token_type: "Bearer",
        scope: "read write",
        created_at: Math.floor(kith.clock.now().getTime() / 1000),
        refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      });
      const me = await kith.request("GET", ME, { token: granted.body.access_token as string });
      expect(me.status).toBe(200);
      expect((await me.json()).id).toBe(user.account.id);
    });

    it("accepts a JSON body", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      const granted = await token(
        { grant_type: "authorization_code", client_id: app.client_id, client_secret: app.client_secret, code, redirect_uri: CALLBACK },
        { json: true },
      );
      expect(granted.status).toBe(200);
    });

    it("lets a code be used once only", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      expect((await exchange(app, code)).status).toBe(200);
      const again = await exchange(app, code);
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ error: "invalid_grant", error_description: expect.any(String) });
    });

    it("refuses an expired code", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      kith.clock.advance(AUTHORIZATION_CODE_TTL_SECONDS * 1000 + 1000);
      const late = await exchange(app, code);
      expect(late.status).toBe(400);
      expect(late.body.error).toBe("invalid_grant");
    });

    it("refuses a code with another redirect URI or presented by another client, and spends it", async () => {
      const app = await registerApp(kith, { redirectUris: [CALLBACK, "https://client.example/other"] });
      const other = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      expect((await exchange(app, code, { redirect_uri: "https://client.example/other" })).body.error).toBe("invalid_grant");
      expect((await exchange(app, code)).body.error).toBe("invalid_grant");
      const second = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      expect((await exchange(other, second)).body.error).toBe("invalid_grant");
    });

    it("refuses a wrong client secret with 401 invalid_client", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      const response = await exchange(app, code, { client_secret: "wrong" });
      expect(response.status).toBe(401);
      expect(response.body.error).toBe("invalid_client");
      const missing = await token({ grant_type: "client_credentials", client_id: app.client_id });
      expect(missing.status).toBe(401);
    });

    describe("PKCE", () => {
      it("exchanges the code with the right verifier", async () => {
        const app = await registerApp(kith, { redirectUris: CALLBACK });
        const user = await freshUser();
        const { verifier, challenge } = pkcePair();
        const code = await obtainCode(
          kith,
          app,
          { username: user.account.username, password: user.password },
          {
            code_challenge: challenge,
            code_challenge_method: "S256",
          },
        );
        const granted = await exchange(app, code, { code_verifier: verifier });
        expect(granted.status).toBe(200);
      });

      it("refuses a wrong or missing verifier", async () => {
        const app = await registerApp(kith, { redirectUris: CALLBACK });
        const user = await freshUser();
        const credentials = { username: user.account.username, password: user.password };
        const { challenge } = pkcePair();
        const pkce = { code_challenge: challenge, code_challenge_method: "S256" };
        const wrong = await exchange(app, await obtainCode(kith, app, credentials, pkce), { code_verifier: pkcePair().verifier });
        expect(wrong.status).toBe(400);
        expect(wrong.body.error).toBe("invalid_grant");
        const missing = await exchange(app, await obtainCode(kith, app, credentials, pkce));
        expect(missing.body.error).toBe("invalid_grant");
      });

      it("refuses a verifier for a code issued without a challenge", async () => {
        const app = await registerApp(kith, { redirectUris: CALLBACK });
        const user = await freshUser();
        const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
        expect((await exchange(app, code, { code_verifier: pkcePair().verifier })).body.error).toBe("invalid_grant");
      });
    });
  });

  describe("client_credentials grant", () => {
    it("issues an app token that is no user", async () => {
      const app = await registerApp(kith, { scopes: "read write" });
      const granted = await token({
        grant_type: "client_credentials",
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: "read",
      });
      expect(granted.status).toBe(200);
      expect(granted.body).toMatchObject({ token_type: "Bearer", scope: "read" });
      expect(granted.body.refresh_token).toBeUndefined();
      expect((await kith.request("GET", ME, { token: granted.body.access_token as string })).status).toBe(401);
      const row = await kith.storage.db.selectFrom("sessions").selectAll().where("app_id", "=", app.id).executeTakeFirstOrThrow();
      expect(row.account_id).toBeNull();
    });

    it("takes the client's credentials as HTTP Basic, and refuses a wrong secret sent that way", async () => {
      const app = await registerApp(kith, { scopes: "read" });
      const basic = (secret: string) =>
        `Basic ${Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
      const granted = await token({ grant_type: "client_credentials" }, { headers: { authorization: basic(app.client_secret) } });
      expect(granted.status).toBe(200);
      expect(granted.body.token_type).toBe("Bearer");
      const refused = await token({ grant_type: "client_credentials" }, { headers: { authorization: basic("wrong") } });
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe("invalid_client");
    });

    it("refuses scopes the app did not register", async () => {
      const app = await registerApp(kith, { scopes: "read" });
      const response = await token({
        grant_type: "client_credentials",
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: "write",
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe("invalid_scope");
    });
  });

  describe("password grant", () => {
    it("takes the username or the email, and records the user agent and address", async () => {
      const app = await registerApp(kith, { scopes: "read write" });
      const user = await freshUser();
      for (const username of [user.account.username, user.account.email, user.account.email.toUpperCase()]) {
        const granted = await token(
          {
            grant_type: "password",
            client_id: app.client_id,
            client_secret: app.client_secret,
            username,
            password: user.password,
            scope: "read write",
          },
          { clientIp: "192.0.2.7", headers: { "user-agent": "TestClient/1.0" } },
        );
        expect(granted.status, username).toBe(200);
        expect(granted.body.scope).toBe("read write");
      }
      const sessions = await kith.storage.db
        .selectFrom("sessions")
        .selectAll()
        .where("account_id", "=", user.account.id)
        .where("app_id", "=", app.id)
        .execute();
      expect(sessions).toHaveLength(3);
      expect(sessions[0]).toMatchObject({ user_agent: "TestClient/1.0", ip: "192.0.2.7" });
    });

    it("grants admin scopes the app registered to a user of any role; permissions are checked per request", async () => {
      const app = await registerApp(kith, { scopes: "read admin:read admin:write" });
      const user = await freshUser();
      const granted = await passwordGrant(app, user.account.username, user.password, { scope: "read admin:read" });
      expect(granted.status).toBe(200);
      expect(granted.body.scope).toBe("read admin:read");
    });

    it("refuses scopes outside the app's, a wrong password, and an account that cannot sign in", async () => {
      const app = await registerApp(kith, { scopes: "read" });
      const user = await freshUser();
      expect((await passwordGrant(app, user.account.username, user.password, { scope: "write" })).body.error).toBe("invalid_scope");
      const wrong = await passwordGrant(app, user.account.username, "wrong-password");
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe("invalid_grant");
      expect((await passwordGrant(app, "nobody-here", "whatever")).body.error).toBe("invalid_grant");
      await kith.services.accounts.modify(user.account.username, { disable: true });
      expect((await passwordGrant(app, user.account.username, user.password)).body.error).toBe("invalid_grant");
    });
  });

  describe("refresh_token grant", () => {
    it("rotates: new tokens work, the old pair stops working", async () => {
      const app = await registerApp(kith, { scopes: "read write" });
      const user = await freshUser();
      const first = await passwordGrant(app, user.account.username, user.password, { scope: "read write" });
      const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
        token({
          grant_type: "refresh_token",
          client_id: app.client_id,
          client_secret: app.client_secret,
          refresh_token: refreshToken,
          ...extra,
        });
      const second = await refresh(first.body.refresh_token as string);
      expect(second.status).toBe(200);
      expect(second.body.access_token).not.toBe(first.body.access_token);
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
      expect(second.body.scope).toBe("read write");
      expect((await kith.request("GET", ME, { token: first.body.access_token as string })).status).toBe(401);
      expect((await kith.request("GET", ME, { token: second.body.access_token as string })).status).toBe(200);
      expect((await refresh(first.body.refresh_token as string)).body.error).toBe("invalid_grant");

      const narrowed = await refresh(second.body.refresh_token as string, { scope: "read" });
      expect(narrowed.body.scope).toBe("read");
      expect((await refresh(narrowed.body.refresh_token as string, { scope: "read write" })).body.error).toBe("invalid_scope");
    });

    it("refuses a refresh token presented by another client", async () => {
      const app = await registerApp(kith);
      const other = await registerApp(kith);
      const user = await freshUser();
      const first = await passwordGrant(app, user.account.username, user.password);
      const response = await token({
        grant_type: "refresh_token",
        client_id: other.client_id,
        client_secret: other.client_secret,
        refresh_token: first.body.refresh_token as string,
      });
      expect(response.body.error).toBe("invalid_grant");
    });
  });

  describe("revoke", () => {
    it("revokes a token at once, and answers 200 to an unknown token", async () => {
      const app = await registerApp(kith);
      const user = await freshUser();
      const granted = await passwordGrant(app, user.account.username, user.password);
      const accessToken = granted.body.access_token as string;
      expect((await kith.request("GET", ME, { token: accessToken })).status).toBe(200);
      const response = await kith.request("POST", "/oauth/revoke", {
        form: { token: accessToken, client_id: app.client_id, client_secret: app.client_secret },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({});
      expect((await kith.request("GET", ME, { token: accessToken })).status).toBe(401);
      const unknown = await kith.request("POST", "/oauth/revoke", {
        json: { token: "unknown", client_id: app.client_id, client_secret: app.client_secret },
      });
      expect(unknown.status).toBe(200);
    });

    it("revokes through the refresh token too, and refuses another client's token", async () => {
      const app = await registerApp(kith);
      const other = await registerApp(kith);
      const user = await freshUser();
      const granted = await passwordGrant(app, user.account.username, user.password);
      const foreign = await kith.request("POST", "/oauth/revoke", {
        json: { token: granted.body.refresh_token, client_id: other.client_id, client_secret: other.client_secret },
      });
      expect(foreign.status).toBe(400);
      expect((await foreign.json()).error).toBe("unauthorized_client");
      expect((await kith.request("GET", ME, { token: granted.body.access_token as string })).status).toBe(200);
      await kith.request("POST", "/oauth/revoke", {
        json: { token: granted.body.refresh_token, client_id: app.client_id, client_secret: app.client_secret },
      });
      expect((await kith.request("GET", ME, { token: granted.body.access_token as string })).status).toBe(401);
    });

    it("answers invalid_request without a token and invalid_client with a wrong secret", async () => {
      const app = await registerApp(kith);
      const missing = await kith.request("POST", "/oauth/revoke", { json: { client_id: app.client_id, client_secret: app.client_secret } });
      expect(missing.status).toBe(400);
      expect((await missing.json()).error).toBe("invalid_request");
      const wrong = await kith.request("POST", "/oauth/revoke", { json: { token: "x", client_id: app.client_id, client_secret: "nope" } });
      expect(wrong.status).toBe(401);
      expect((await wrong.json()).error).toBe("invalid_client");
    });
  });

  it("answers OAuth errors for a missing or unknown grant type", async () => {
    const app = await registerApp(kith);
    const missing = await token({ client_id: app.client_id, client_secret: app.client_secret });
    expect(missing).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    const unknown = await token({ grant_type: "implicit", client_id: app.client_id, client_secret: app.client_secret });
    expect(unknown).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
  });

  describe("rate limits", () => {
    it("limits failed password grants per address and account, with 429 and Retry-After, until the window ends", async () => {
      const app = await registerApp(kith);
      const user = await freshUser();
      const ip = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT; i++) {
        expect((await passwordGrant(app, user.account.username, "wrong-password", {}, ip)).status).toBe(400);
      }
      // Over the limit even the right password waits, and even when given as the email.
      const limited = await passwordGrant(app, user.account.email, user.password, {}, ip);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(LOGIN_WINDOW_SECONDS);
      expect(limited.body).toMatchObject({ code: "request.rate_limited" });
      kith.clock.advance(LOGIN_WINDOW_SECONDS * 1000);
      expect((await passwordGrant(app, user.account.username, user.password, {}, ip)).status).toBe(200);
    });

    it("limits failed attempts per address across accounts", async () => {
      const app = await registerApp(kith);
      const user = await freshUser();
      const ip = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_IP; i++) {
        expect((await passwordGrant(app, `someone${i}`, "wrong-password", {}, ip)).status).toBe(400);
      }
      expect((await passwordGrant(app, user.account.username, user.password, {}, ip)).status).toBe(429);
      expect((await passwordGrant(app, user.account.username, user.password, {}, freshIp())).status).toBe(200);
      kith.clock.advance(LOGIN_WINDOW_SECONDS * 1000);
    });

    it("limits failed sign-ins on the authorize page, with 429 and Retry-After", async () => {
      const app = await registerApp(kith, { redirectUris: CALLBACK });
      const user = await freshUser();
      const page = await openAuthorizePage(kith, authorizeQuery(app));
      const ip = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT; i++) {
        const response = await submitAuthorizeForm(kith, page, { username: user.account.username, password: "wrong-password" }, { clientIp: ip });
        expect(response.status).toBe(422);
      }
      const limited = await submitAuthorizeForm(kith, page, { username: user.account.username, password: user.password }, { clientIp: ip });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.headers.get("location")).toBeNull();
      kith.clock.advance(LOGIN_WINDOW_SECONDS * 1000);
    });

    it("wrong passwords from another address do not lock the account's owner out", async () => {
      const app = await registerApp(kith);
      const user = await freshUser();
      const stranger = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT; i++) {
        expect((await passwordGrant(app, user.account.username, "wrong-password", {}, stranger)).status).toBe(400);
      }
      expect((await passwordGrant(app, user.account.username, user.password, {}, stranger)).status).toBe(429);
      expect((await passwordGrant(app, user.account.email, user.password, {}, freshIp())).status).toBe(200);
      kith.clock.advance(LOGIN_WINDOW_SECONDS * 1000);
    });

    it("limits failed attempts on one account spread over many addresses, over a longer window", async () => {
      const app = await registerApp(kith);
      const user = await freshUser();
      // Each address stays under its own limits; together they reach the account's ceiling.
      const perAddress = LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT - 1;
      for (let sent = 0; sent < LOGIN_FAILURES_PER_ACCOUNT; ) {
        const ip = freshIp();
        for (let i = 0; i < perAddress && sent < LOGIN_FAILURES_PER_ACCOUNT; i++, sent++) {
          expect((await passwordGrant(app, user.account.username, "wrong-password", {}, ip)).status).toBe(400);
        }
      }
      const limited = await passwordGrant(app, user.account.username, user.password, {}, freshIp());
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(LOGIN_WINDOW_SECONDS);
      kith.clock.advance(LOGIN_ACCOUNT_WINDOW_SECONDS * 1000);
      expect((await passwordGrant(app, user.account.username, user.password, {}, freshIp())).status).toBe(200);
    });
  });
});
