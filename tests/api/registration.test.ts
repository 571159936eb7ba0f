/**
 * Sign-up through Mastodon's `POST /api/v1/accounts`, in each registration
 * mode, with email confirmation through the mail port, per-field validation
 * errors, address normalisation, and the rate limits.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { appToken, confirmationLink, pathOf, signUp, signupFields } from "../support/registration.js";
import { describeOnEngines } from "../support/engines.js";

type Details = Record<string, Array<{ error: string; description: string }>>;

describeOnEngines("registration", (engine) => {
  let kith: TestKith;
  let token: string;
  let ipSerial = 0;
  /** A fresh client address per sign-up, so the per-address limit stays out of tests about other things. */
  const ip = () => `192.0.2.${++ipSerial}`;

  beforeEach(async () => {
    kith = await engine.testKith();
    ({ token } = await appToken(kith));
  });
  afterEach(() => kith.close());

  const setMode = (mode: "open" | "approval" | "closed") => kith.services.settings.update({ registrationsMode: mode });

  async function expectInvalid(response: Response): Promise<Details> {
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: string; code: string; details: Details };
    expect(body.code).toBe("registration.invalid");
    expect(body.error).toMatch(/^Validation failed: /);
    return body.details;
  }

  describe("access", () => {
    it("is 401 without a token", async () => {
      const response = await kith.request("POST", "/api/v1/accounts", { json: signupFields("alice") });
      expect(response.status).toBe(401);
      expect(await kith.storage.db.selectFrom("users").selectAll().execute()).toEqual([]);
    });

    it("is 403 for an app token without write:accounts", async () => {
      const readOnly = await appToken(kith, "read");
      const response = await signUp(kith, readOnly.token, signupFields("alice"), { clientIp: ip() });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "auth.insufficient_scope" });
    });

    it("accepts the granular write:accounts scope", async () => {
      const granular = await appToken(kith, "write:accounts");
      const response = await signUp(kith, granular.token, signupFields("alice"), { clientIp: ip() });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ scope: "write:accounts" });
    });
  });

  describe("open mode", () => {
    it("creates the account, answers a Token entity, and mails a confirmation link", async () => {
      const response = await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        access_token: expect.any(String),
        token_type: "Bearer",
        scope: "read write",
        created_at: expect.any(Number),
      });
      const account = await kith.services.accounts.findByUsername("alice");
      expect(account).toMatchObject({ email: "alice@example.com", approved: true, emailConfirmed: false });
      const mail = kith.mail.lastTo("alice@example.com");
      expect(mail?.subject).toMatch(/confirm/i);
      expect(confirmationLink(kith, "alice@example.com")).toMatch(/^https:\/\/kith\.test\/auth\/confirmation\?confirmation_token=/);
      const user = await kith.storage.db.selectFrom("users").selectAll().where("account_id", "=", account.id).executeTakeFirstOrThrow();
      expect(user.locale).toBe("en");
    });

    it("takes a form-encoded body, as clients send it", async () => {
      const response = await kith.request("POST", "/api/v1/accounts", {
        token,
        clientIp: ip(),
        form: { username: "bob", email: "bob@example.com", password: "correct horse battery", agreement: "true", locale: "de" },
      });
      expect(response.status).toBe(200);
      expect((await kith.services.accounts.findByUsername("bob")).email).toBe("bob@example.com");
    });

    it("lets an unconfirmed user hold a token, but most routes answer 403 until the address is confirmed", async () => {
      const response = await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      const { access_token: userToken } = (await response.json()) as { access_token: string };
      const before = await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken });
      expect(before.status).toBe(403);
      expect(await before.json()).toMatchObject({
        error: "Your login is missing a confirmed e-mail address",
        code: "registration.email_unconfirmed",
      });
      // The app behind the token can still be checked: that route takes any token.
      expect((await kith.request("GET", "/api/v1/apps/verify_credentials", { token: userToken })).status).toBe(200);

      const page = await kith.request("GET", pathOf(confirmationLink(kith, "alice@example.com")));
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(await page.text()).toContain("confirmed");
      const after = await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken });
      expect(after.status).toBe(200);
      expect(await after.json()).toMatchObject({ username: "alice" });
    });

    it("confirmation links work once", async () => {
      await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      const path = pathOf(confirmationLink(kith, "alice@example.com"));
      expect((await kith.request("GET", path)).status).toBe(200);
      const again = await kith.request("GET", path);
      expect(again.status).toBe(404);
      expect(await again.text()).toMatch(/invalid, used or expired/);
    });

    it("confirmation links expire after 24 hours", async () => {
      await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      const path = pathOf(confirmationLink(kith, "alice@example.com"));
      kith.clock.advance(24 * 60 * 60 * 1000 + 1000);
      expect((await kith.request("GET", path)).status).toBe(404);
      expect((await kith.services.accounts.findByUsername("alice")).emailConfirmed).toBe(false);
    });

    it("refuses a missing or made-up confirmation token", async () => {
      expect((await kith.request("GET", "/auth/confirmation")).status).toBe(404);
      expect((await kith.request("GET", "/auth/confirmation?confirmation_token=made-up")).status).toBe(404);
    });

    it("resends the confirmation mail with a new link; the old one stops working", async () => {
      const response = await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      const { access_token: userToken } = (await response.json()) as { access_token: string };
      const oldPath = pathOf(confirmationLink(kith, "alice@example.com"));
      const resend = await kith.request("POST", "/api/v1/emails/confirmations", { token: userToken });
      expect(resend.status).toBe(200);
      expect(kith.mail.sent.filter((mail) => mail.to === "alice@example.com")).toHaveLength(2);
      const newPath = pathOf(confirmationLink(kith, "alice@example.com"));
      expect(newPath).not.toBe(oldPath);
      expect((await kith.request("GET", oldPath)).status).toBe(404);
      expect((await kith.request("GET", newPath)).status).toBe(200);
      // Once confirmed, there is nothing to resend.
      const late = await kith.request("POST", "/api/v1/emails/confirmations", { token: userToken });
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({ code: "registration.already_confirmed" });
    });

    it("limits confirmation resends per account, with Retry-After", async () => {
      const response = await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      const { access_token: userToken } = (await response.json()) as { access_token: string };
      for (let i = 0; i < 3; i++) {
        expect((await kith.request("POST", "/api/v1/emails/confirmations", { token: userToken })).status).toBe(200);
      }
      const limited = await kith.request("POST", "/api/v1/emails/confirmations", { token: userToken });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      kith.clock.advance(60 * 60 * 1000 + 1000);
      expect((await kith.request("POST", "/api/v1/emails/confirmations", { token: userToken })).status).toBe(200);
    });

    it("resending needs a signed-in user, not an app token", async () => {
      expect((await kith.request("POST", "/api/v1/emails/confirmations")).status).toBe(401);
      expect((await kith.request("POST", "/api/v1/emails/confirmations", { token })).status).toBe(401);
    });
  });

  describe("validation", () => {
    it("reports every problem at once, per field, with Mastodon's ERR_* codes", async () => {
      const details = await expectInvalid(await signUp(kith, token, {}, { clientIp: ip() }));
      expect(details).toEqual({
        username: [{ error: "ERR_BLANK", description: "can't be blank" }],
        // Blank fails the address's presence and its form, both listed, as Mastodon lists them.
        email: [
          { error: "ERR_BLANK", description: "can't be blank" },
          { error: "ERR_INVALID", description: "is invalid" },
        ],
        password: [{ error: "ERR_BLANK", description: "can't be blank" }],
        agreement: [{ error: "ERR_ACCEPTED", description: "must be accepted" }],
      });
      expect(await kith.storage.db.selectFrom("users").selectAll().execute()).toEqual([]);
    });

    it("refuses agreement false", async () => {
      const details = await expectInvalid(await signUp(kith, token, signupFields("alice", { agreement: false }), { clientIp: ip() }));
      expect(details.agreement?.[0]?.error).toBe("ERR_ACCEPTED");
    });

    it.each([
      ["a name with spaces", "not valid", "ERR_INVALID"],
      ["a name too long", "a".repeat(31), "ERR_TOO_LONG"],
      ["a reserved name", "Admin", "ERR_RESERVED"],
    ])("refuses %s", async (_, username, code) => {
      const details = await expectInvalid(await signUp(kith, token, signupFields("x", { username }), { clientIp: ip() }));
      expect(details.username?.[0]?.error).toBe(code);
    });

    it("refuses a taken username (whatever its case) and a taken address", async () => {
      await kith.createUser("alice", { email: "alice@example.com" });
      const details = await expectInvalid(
        await signUp(kith, token, signupFields("ALICE", { email: "Alice@Example.com" }), { clientIp: ip() }),
      );
      expect(details.username).toEqual([{ error: "ERR_TAKEN", description: "is taken" }]);
      expect(details.email).toEqual([{ error: "ERR_TAKEN", description: "is taken" }]);
    });

    it("refuses short and long passwords", async () => {
      const short = await expectInvalid(await signUp(kith, token, signupFields("a1", { password: "short" }), { clientIp: ip() }));
      expect(short.password?.[0]?.error).toBe("ERR_TOO_SHORT");
      const long = await expectInvalid(await signUp(kith, token, signupFields("a2", { password: "x".repeat(73) }), { clientIp: ip() }));
      expect(long.password?.[0]?.error).toBe("ERR_TOO_LONG");
    });

    it("drops an unknown locale, as Mastodon does, and keeps a known one", async () => {
      for (const [username, locale, kept] of [
        ["l1", "not a locale!", null],
        ["l2", "xx", null],
        ["l3", "pt-BR", "pt-BR"],
        ["l4", "de", "de"],
      ] as const) {
        const response = await signUp(kith, token, signupFields(username, { locale }), { clientIp: ip() });
        expect(response.status, locale).toBe(200);
        const account = await kith.services.accounts.findByUsername(username);
        const user = await kith.storage.db
          .selectFrom("users")
          .select("locale")
          .where("account_id", "=", account.id)
          .executeTakeFirstOrThrow();
        expect(user.locale, locale).toBe(kept);
      }
    });

    it("lists both ERR_BLANK and ERR_INVALID for an empty address, as Mastodon does", async () => {
      const details = await expectInvalid(await signUp(kith, token, signupFields("e1", { email: "" }), { clientIp: ip() }));
      expect(details.email?.map((entry) => entry.error)).toEqual(["ERR_BLANK", "ERR_INVALID"]);
      expect(Object.keys(details)).toEqual(["email"]);
    });
  });

  describe("email addresses", () => {
    it.each([
      ["a quoted local part", '"a b"@example.com'],
      ["a quoted local part hiding an @", '"a@b"@example.com'],
      ["a comment", "a(comment)@example.com"],
      ["a comment after the domain", "a@example.com(comment)"],
      ["an IP-literal domain", "a@[127.0.0.1]"],
      ["an IPv6 literal", "a@[IPv6:::1]"],
      ["a bare IP address", "a@127.0.0.1"],
      ["consecutive dots", "a..b@example.com"],
      ["a leading dot", ".a@example.com"],
      ["a trailing dot in the local part", "a.@example.com"],
      ["consecutive dots in the domain", "a@example..com"],
      ["a leading dot in the domain", "a@.example.com"],
      ["a trailing dot in the domain", "a@example.com."],
      ["a non-ASCII local part", "jörg@example.com"],
      ["two @", "a@b@example.com"],
      ["no domain", "a@"],
      ["no local part", "@example.com"],
      ["a single-label domain", "a@localhost"],
      ["whitespace inside", "a b@example.com"],
      ["a backslash", "a\\b@example.com"],
    ])("refuses %s", async (_, email) => {
      const details = await expectInvalid(await signUp(kith, token, signupFields("someone", { email }), { clientIp: ip() }));
      expect(details.email?.[0]?.error).toBe("ERR_INVALID");
    });

    it("trims and lower-cases the address; an internationalised domain is stored as punycode", async () => {
      expect((await signUp(kith, token, signupFields("bob", { email: "  Bob@EXAMPLE.Org " }), { clientIp: ip() })).status).toBe(200);
      expect((await kith.services.accounts.findByUsername("bob")).email).toBe("bob@example.org");
      expect(kith.mail.lastTo("bob@example.org")).toBeDefined();
      expect((await signUp(kith, token, signupFields("carol", { email: "carol@Bücher.example" }), { clientIp: ip() })).status).toBe(200);
      expect((await kith.services.accounts.findByUsername("carol")).email).toBe("carol@xn--bcher-kva.example");
    });

    it("keeps plus addressing and the other atext characters", async () => {
      const response = await signUp(kith, token, signupFields("dave", { email: "dave+kith_1.x@example.com" }), { clientIp: ip() });
      expect(response.status).toBe(200);
    });
  });

  describe("approval mode", () => {
    beforeEach(() => setMode("approval"));

    it("requires a reason", async () => {
      const details = await expectInvalid(await signUp(kith, token, signupFields("alice"), { clientIp: ip() }));
      expect(details.reason).toEqual([{ error: "ERR_BLANK", description: "can't be blank" }]);
    });

    it("creates the account unapproved with its reason; it cannot sign in until approved", async () => {
      const response = await signUp(kith, token, signupFields("alice", { reason: "I knit." }), { clientIp: ip() });
      expect(response.status).toBe(200);
      const { access_token: userToken } = (await response.json()) as { access_token: string };
      const account = await kith.services.accounts.findByUsername("alice");
      expect(account.approved).toBe(false);
      const user = await kith.storage.db.selectFrom("users").selectAll().where("account_id", "=", account.id).executeTakeFirstOrThrow();
      expect(user.signup_reason).toBe("I knit.");
      expect(kith.mail.lastTo("alice@example.com")).toBeDefined();
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken })).status).toBe(401);
      const { app } = await appToken(kith);
      const grant = await kith.request("POST", "/oauth/token", {
        form: {
          grant_type: "password",
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: "alice@example.com",
          password: "correct horse battery",
          scope: "read",
        },
      });
      expect(grant.status).toBe(400);
      expect(await grant.json()).toMatchObject({ error: "invalid_grant" });
    });
  });

  describe("closed mode", () => {
    it("refuses sign-ups with 403 and creates nothing", async () => {
      await setMode("closed");
      const response = await signUp(kith, token, signupFields("alice"), { clientIp: ip() });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "registration.closed", error: "Registrations are closed on this server" });
      expect(await kith.storage.db.selectFrom("users").selectAll().execute()).toEqual([]);
      expect(kith.mail.sent).toEqual([]);
    });
  });

  describe("rate limit", () => {
    it("allows 5 sign-ups per address in 30 minutes, then 429 with Retry-After", async () => {
      const address = "198.51.100.7";
      for (let i = 0; i < 5; i++) {
        // Refused attempts count as well as accepted ones.
        const fields = i % 2 === 0 ? signupFields(`user${i}`) : {};
        expect([200, 422]).toContain((await signUp(kith, token, fields, { clientIp: address })).status);
      }
      const limited = await signUp(kith, token, signupFields("sixth"), { clientIp: address });
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject({ code: "request.rate_limited" });
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(30 * 60);
      // Another address is not affected.
      expect((await signUp(kith, token, signupFields("other"), { clientIp: "198.51.100.8" })).status).toBe(200);
      kith.clock.advance(30 * 60 * 1000 + 1000);
      expect((await signUp(kith, token, signupFields("sixth"), { clientIp: address })).status).toBe(200);
    });
  });
});
