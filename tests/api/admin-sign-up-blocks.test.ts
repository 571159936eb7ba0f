/**
 * Mastodon's blocks on sign-ups: canonical email blocks, email domain blocks
 * and IP blocks, their admin endpoints, and what registration and sign-in
 * make of them.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { SoftwareAuthenticator, toEntries } from "../support/software-authenticator.js";
import { appToken, signUp, signupFields } from "../support/registration.js";
import { authorizeQuery, obtainCode, openAuthorizePage, registerApp, submitAuthorizeForm } from "../support/oauth.js";

const CANONICAL = "/api/v1/admin/canonical_email_blocks";
const DOMAINS = "/api/v1/admin/email_domain_blocks";
const IPS = "/api/v1/admin/ip_blocks";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describeOnEngines("sign-up blocks", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  let moderator: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("sub_admin", { role: "Admin" });
    moderator = await kith.createUser("sub_mod", { role: "Moderator" });
  });
  afterAll(() => kith.close());

  const call = async (method: string, path: string, token: string | undefined, json?: unknown) => {
    const response = await kith.request(method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };

  const signUpAs = async (email: string, clientIp = "198.51.100.1") => {
    const { token } = await appToken(kith, "read write");
    const response = await signUp(kith, token, signupFields(`sub${++serial}`, { email }), { clientIp });
    return { status: response.status, body: await response.json() };
  };

  const passwordGrant = async (user: TestUser, clientIp: string) => {
    const app = await registerApp(kith, { scopes: "read" });
    return kith.request("POST", "/oauth/token", {
      clientIp,
      form: {
        grant_type: "password",
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: user.account.username,
        password: user.password,
        scope: "read",
      },
    });
  };

  describe("permissions", () => {
    it("answers 401 without a token and 403 without AdminSettings (a Moderator)", async () => {
      for (const [method, path, body] of [
        ["GET", CANONICAL],
        ["POST", CANONICAL, { email: "a@b.org" }],
        ["POST", `${CANONICAL}/test`, { email: "a@b.org" }],
        ["GET", DOMAINS],
        ["POST", DOMAINS, { domain: "b.org" }],
        ["GET", IPS],
        ["POST", IPS, { ip: "192.0.2.1", severity: "no_access" }],
      ] as const) {
        expect((await call(method, path, undefined, body)).status, `${method} ${path}`).toBe(401);
        expect((await call(method, path, moderator.token, body)).status, `${method} ${path}`).toBe(403);
      }
    });

    it("needs an admin scope on the token", async () => {
      const scoped = await kith.createUser("sub_scoped", { role: "Admin", scopes: ["read", "write"] });
      expect((await call("GET", IPS, scoped.token)).status).toBe(403);
      const granular = await kith.createUser("sub_granular", { role: "Admin", scopes: ["admin:read:ip_blocks"] });
      expect((await call("GET", IPS, granular.token)).status).toBe(200);
      expect((await call("GET", DOMAINS, granular.token)).status).toBe(403);
    });
  });

  describe("canonical email blocks", () => {
    it("blocks by email or by hash, tests addresses, lists, shows and lifts", async () => {
      const created = await call("POST", CANONICAL, admin.token, { email: "Spam.Mer+x@Example.org" });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ id: expect.stringMatching(/^ce_/), canonical_email_hash: sha256("spammer@example.org") });

      const byHash = await call("POST", CANONICAL, admin.token, { canonical_email_hash: sha256("other@example.org") });
      expect(byHash.status).toBe(200);

      const matched = await call("POST", `${CANONICAL}/test`, admin.token, { email: "s.p.a.m.m.e.r+whatever@example.org" });
      expect(matched.body).toEqual([created.body]);
      expect((await call("POST", `${CANONICAL}/test`, admin.token, { email: "someone@example.org" })).body).toEqual([]);

      const list = await call("GET", `${CANONICAL}?limit=1`, admin.token);
      expect(list.body).toEqual([byHash.body]);
      expect(list.headers.get("link")).toContain(`max_id=${byHash.body.id}`);
      expect((await call("GET", `${CANONICAL}/${created.body.id}`, admin.token)).body).toEqual(created.body);

      expect((await call("DELETE", `${CANONICAL}/${byHash.body.id}`, admin.token)).body).toEqual({});
      expect((await call("GET", `${CANONICAL}/${byHash.body.id}`, admin.token)).status).toBe(404);
      expect((await call("DELETE", `${CANONICAL}/${byHash.body.id}`, admin.token)).status).toBe(404);
    });

    it("refuses bad input and a form blocked already", async () => {
      expect((await call("POST", CANONICAL, admin.token, {})).status).toBe(422);
      expect((await call("POST", CANONICAL, admin.token, { email: "not-an-address" })).status).toBe(422);
      const badHash = await call("POST", CANONICAL, admin.token, { canonical_email_hash: "abc" });
      expect(badHash.status).toBe(422);
      expect(badHash.body.error).toBeDefined();
      await call("POST", CANONICAL, admin.token, { email: "twice@example.net" });
      expect((await call("POST", CANONICAL, admin.token, { email: "Twi.ce@example.net" })).status).toBe(422);
      expect((await call("POST", `${CANONICAL}/test`, admin.token, {})).status).toBeGreaterThanOrEqual(400);
    });

    it("refuses a sign-up with a blocked address in any of its spellings", async () => {
      await call("POST", CANONICAL, admin.token, { email: "blocked.person@mail.test" });
      const refused = await signUpAs("Blocked.Person+new@mail.test");
      expect(refused.status).toBe(422);
      expect(refused.body.details.email).toEqual([expect.objectContaining({ error: "ERR_BLOCKED" })]);
      expect((await signUpAs("free.person@mail.test")).status).toBe(200);
    });
  });

  describe("email domain blocks", () => {
    it("blocks a domain and its subdomains from signing up, and counts the attempts", async () => {
      const created = await call("POST", DOMAINS, admin.token, { domain: "Spam.Example" });
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ id: expect.stringMatching(/^eb_/), domain: "spam.example", allow_with_approval: false });
      expect(created.body.history).toHaveLength(7);
      expect(created.body.history[0]).toEqual({ day: expect.stringMatching(/^\d+$/), accounts: "0", uses: "0" });

      const refused = await signUpAs("someone@spam.example", "198.51.100.7");
      expect(refused.status).toBe(422);
      expect(refused.body.details.email).toEqual([expect.objectContaining({ error: "ERR_BLOCKED" })]);
      expect((await signUpAs("other@mx.spam.example", "198.51.100.8")).status).toBe(422);
      expect((await signUpAs("fine@notspam.example")).status).toBe(200);

      const shown = await call("GET", `${DOMAINS}/${created.body.id}`, admin.token);
      expect(shown.body.history[0]).toMatchObject({ uses: "2", accounts: "2" });
      expect((await call("GET", DOMAINS, admin.token)).body.map((b: { id: string }) => b.id)).toContain(created.body.id);

      expect((await call("DELETE", `${DOMAINS}/${created.body.id}`, admin.token)).body).toEqual({});
      expect((await signUpAs("someone@spam.example")).status).toBe(200);
    });

    it("with allow_with_approval, lets the sign-up through to wait for approval", async () => {
      await call("POST", DOMAINS, admin.token, { domain: "review.example", allow_with_approval: true });
      const held = await signUpAs("newcomer@review.example");
      expect(held.status).toBe(200);
      const me = await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: held.body.access_token });
      expect(me.status).toBe(401);
      const pending = await call("GET", "/api/v1/admin/accounts?pending=true", admin.token);
      expect(pending.body.map((a: { email: string }) => a.email)).toContain("newcomer@review.example");
    });

    it("refuses what is not a domain, a domain blocked already, and unknown ids", async () => {
      expect((await call("POST", DOMAINS, admin.token, { domain: "not a domain" })).status).toBe(422);
      expect((await call("POST", DOMAINS, admin.token, {})).status).toBeGreaterThanOrEqual(400);
      await call("POST", DOMAINS, admin.token, { domain: "dup.example" });
      expect((await call("POST", DOMAINS, admin.token, { domain: "DUP.example" })).status).toBe(422);
      expect((await call("GET", `${DOMAINS}/eb_missing`, admin.token)).status).toBe(404);
      expect((await call("DELETE", `${DOMAINS}/eb_missing`, admin.token)).status).toBe(404);
    });
  });

  describe("IP blocks", () => {
    it("creates, lists, updates and lifts, showing ranges with their host bits cleared", async () => {
      const created = await call("POST", IPS, admin.token, { ip: "203.0.113.77/24", severity: "sign_up_block", comment: "spam wave" });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^ib_/),
        ip: "203.0.113.0/24",
        severity: "sign_up_block",
        comment: "spam wave",
        created_at: expect.any(String),
        expires_at: null,
      });
      const single = await call("POST", IPS, admin.token, { ip: "2001:DB8::1", severity: "sign_up_requires_approval", expires_in: 3600 });
      expect(single.body).toMatchObject({ ip: "2001:db8::1/128", expires_at: expect.any(String) });

      const updated = await call("PUT", `${IPS}/${created.body.id}`, admin.token, { severity: "no_access", comment: "worse" });
      expect(updated.body).toMatchObject({ ip: "203.0.113.0/24", severity: "no_access", comment: "worse" });
      expect((await call("GET", `${IPS}/${created.body.id}`, admin.token)).body).toEqual(updated.body);
      const ids = (await call("GET", IPS, admin.token)).body.map((b: { id: string }) => b.id);
      expect(ids).toEqual(expect.arrayContaining([created.body.id, single.body.id]));

      expect((await call("DELETE", `${IPS}/${created.body.id}`, admin.token)).body).toEqual({});
      expect((await call("DELETE", `${IPS}/${single.body.id}`, admin.token)).body).toEqual({});
      expect((await call("GET", `${IPS}/${created.body.id}`, admin.token)).status).toBe(404);
    });

    it("refuses bad input", async () => {
      expect((await call("POST", IPS, admin.token, { ip: "999.1.1.1", severity: "no_access" })).status).toBe(422);
      expect((await call("POST", IPS, admin.token, { ip: "192.0.2.0/33", severity: "no_access" })).status).toBe(422);
      expect((await call("POST", IPS, admin.token, { ip: "192.0.2.0/24", severity: "sometimes" })).status).toBeGreaterThanOrEqual(400);
      expect((await call("POST", IPS, admin.token, { severity: "no_access" })).status).toBeGreaterThanOrEqual(400);
      expect(
        (await call("POST", IPS, admin.token, { ip: "192.0.2.0/24", severity: "no_access", expires_in: -5 })).status,
      ).toBeGreaterThanOrEqual(400);
      const first = await call("POST", IPS, admin.token, { ip: "192.0.2.0/24", severity: "no_access" });
      expect((await call("POST", IPS, admin.token, { ip: "192.0.2.9/24", severity: "sign_up_block" })).status).toBe(422);
      expect((await call("PUT", `${IPS}/${first.body.id}`, admin.token, { ip: "nonsense" })).status).toBe(422);
      expect((await call("PUT", `${IPS}/ib_missing`, admin.token, { comment: "x" })).status).toBe(404);
      await call("DELETE", `${IPS}/${first.body.id}`, admin.token);
    });

    it("sign_up_block refuses sign-ups from the range (403) but not sign-ins", async () => {
      const block = await call("POST", IPS, admin.token, { ip: "100.64.0.0/16", severity: "sign_up_block" });
      const refused = await signUpAs("ranged@ok.example", "100.64.3.4");
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe("Sign-ups from your network address are not allowed");
      expect((await signUpAs("ranged@ok.example", "100.65.3.4")).status).toBe(200);
      const user = await kith.createUser("sub_signin1");
      expect((await passwordGrant(user, "100.64.3.4")).status).toBe(200);
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);
    });

    it("no_access refuses sign-ups and sign-ins from the range, an IPv4-mapped address included", async () => {
      const block = await call("POST", IPS, admin.token, { ip: "100.80.0.0/16", severity: "no_access" });
      expect((await signUpAs("nope@ok.example", "100.80.1.1")).status).toBe(403);
      const user = await kith.createUser("sub_signin2");
      const refused = await passwordGrant(user, "::ffff:100.80.9.9");
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "auth.address_blocked" });
      const granted = await passwordGrant(user, "100.81.0.1");
      expect(granted.status).toBe(200);
      const { refresh_token } = (await granted.json()) as { refresh_token: string };
      const app = await registerApp(kith, { scopes: "read" });
      const refreshed = await kith.request("POST", "/oauth/token", {
        clientIp: "100.80.1.1",
        form: { grant_type: "refresh_token", refresh_token, client_id: app.client_id, client_secret: app.client_secret },
      });
      // Refused for the blocked address before the token's own app is even compared.
      expect(refreshed.status).toBe(403);
      expect(await refreshed.json()).toMatchObject({ code: "auth.address_blocked" });
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);
      expect((await passwordGrant(user, "100.80.9.9")).status).toBe(200);
    });

    it("no_access refuses the authorize page's sign-in and the exchange of a code from the range", async () => {
      const user = await kith.createUser("sub_signin3");
      const app = await registerApp(kith, { scopes: "read" });
      const code = await obtainCode(kith, app, { username: user.account.username, password: user.password });
      const block = await call("POST", IPS, admin.token, { ip: "100.70.0.0/16", severity: "no_access" });

      const page = await openAuthorizePage(kith, authorizeQuery(app));
      const refused = await submitAuthorizeForm(
        kith,
        page,
        { username: user.account.username, password: user.password },
        { clientIp: "100.70.2.2" },
      );
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("network address is blocked");

      const exchange = await kith.request("POST", "/oauth/token", {
        clientIp: "100.70.2.2",
        form: {
          grant_type: "authorization_code",
          code,
          client_id: app.client_id,
          client_secret: app.client_secret,
          redirect_uri: app.redirect_uris[0] ?? "",
        },
      });
      expect(exchange.status).toBe(403);
      expect(await exchange.json()).toMatchObject({ code: "auth.address_blocked" });
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);
    });

    it("no_access cuts the range off from everything, tokens issued before the block included, until it is lifted", async () => {
      const user = await kith.createUser("sub_cut");
      const asUser = (clientIp: string) => kith.request("GET", "/api/v1/accounts/verify_credentials", { token: user.token, clientIp });
      expect((await asUser("100.90.1.1")).status).toBe(200);
      const block = await call("POST", IPS, admin.token, { ip: "100.90.0.0/16", severity: "no_access" });
      const cut = await asUser("100.90.1.1");
      expect(cut.status).toBe(403);
      expect(await cut.json()).toMatchObject({ code: "auth.address_blocked" });
      // Guests from the range too, and every kind of route; other addresses are served as before.
      expect((await kith.request("GET", "/api/v2/instance", { clientIp: "100.90.7.7" })).status).toBe(403);
      expect((await kith.request("GET", "/.well-known/nodeinfo", { clientIp: "100.90.7.7" })).status).toBe(403);
      expect((await asUser("100.91.1.1")).status).toBe(200);
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);
      expect((await asUser("100.90.1.1")).status).toBe(200);
    });

    it("no_access refuses a passkey sign-in from the range", async () => {
      const user = await kith.createUser("sub_passkey");
      const authenticator = new SoftwareAuthenticator("https://kith.test");
      const options = await (await kith.request("GET", "/api/v1/passkeys/begin-register", { token: user.token })).json();
      const registered = await kith.request("POST", "/api/v1/passkeys/finish-register", {
        token: user.token,
        json: toEntries(authenticator.register(options)),
      });
      expect(registered.status).toBe(200);
      const block = await call("POST", IPS, admin.token, { ip: "100.75.0.0/16", severity: "no_access" });
      const assertion = async () =>
        toEntries(authenticator.assert(await (await kith.request("GET", "/api/v1/passkeys/begin-auth?username=sub_passkey")).json()));
      const refused = await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: await assertion(), clientIp: "100.75.0.9" });
      expect(refused.status).toBe(403);
      expect((await refused.json()).error).toBe("Access from your network address is blocked");
      const allowed = await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: await assertion(), clientIp: "100.76.0.9" });
      expect(allowed.status).toBe(200);
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);
    });

    it("sign_up_requires_approval holds the sign-up for approval; an expired block is gone", async () => {
      const block = await call("POST", IPS, admin.token, { ip: "2001:db8:aa::/48", severity: "sign_up_requires_approval" });
      const held = await signUpAs("held@ok.example", "2001:db8:aa::5");
      expect(held.status).toBe(200);
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: held.body.access_token })).status).toBe(401);
      await call("DELETE", `${IPS}/${block.body.id}`, admin.token);

      const brief = await call("POST", IPS, admin.token, { ip: "100.90.0.0/16", severity: "no_access", expires_in: 60 });
      expect((await signUpAs("brief@ok.example", "100.90.0.1")).status).toBe(403);
      kith.clock.advance(61_000);
      expect((await signUpAs("brief@ok.example", "100.90.0.1")).status).toBe(200);
      expect((await call("GET", `${IPS}/${brief.body.id}`, admin.token)).status).toBe(404);
    });
  });
});
