import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { expectJson, type InspectedJson } from "../support/expect-json.js";

let kith: TestKith;
let alice: TestUser;

function lastCode(address: string): string {
  const text = kith.mail.lastTo(address)?.text ?? "";
  const match = /(\d{6})/.exec(text);
  if (!match?.[1]) throw new Error(`No code mailed to ${address}`);
  return match[1];
}

const wrongCode = (code: string): string => (code === "000000" ? "111111" : "000000");

async function secondSession(user: TestUser): Promise<string> {
  return (await kith.services.sessions.issue({ accountId: user.account.id, scopes: ["read", "write"] })).accessToken;
}

async function signsIn(username: string, password: string): Promise<boolean> {
  return (await kith.services.oauth.signIn(username, password, null)).ok;
}

describeOnEngines("passwords", (engine) => {
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
  });
  afterEach(async () => {
    await kith.close();
  });

  describe("authenticated password change", () => {
    const request = (token: string, currentPassword: string, newPassword: string) =>
      kith.request("POST", "/api/v1/accounts/password/change/request", { token, json: { currentPassword, newPassword } });

    it("request checks the current password, keeps the new one aside and emails a code", async () => {
      const answer = await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      expect(answer.sent).toBe(true);
      expect(new Date(answer.expiresAt).getTime()).toBe(kith.clock.now().getTime() + 15 * 60 * 1000);
      expect(kith.mail.lastTo("alice@kith.test")?.subject).toMatch(/password change code/);
      // Not applied yet.
      expect(await signsIn("alice", alice.password)).toBe(true);
    });

    it("keeps the code only as a hash: no stored secret or payload holds it", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const code = lastCode("alice@kith.test");
      const rows = await kith.storage.db.selectFrom("one_time_secrets").selectAll().where("subject_id", "=", alice.account.id).execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(JSON.stringify(row)).not.toContain(code);
      const pending = await kith.storage.db.selectFrom("pending_password_changes").selectAll().execute();
      expect(JSON.stringify(pending)).not.toContain("a new secret phrase");
    });

    it("confirm applies the password, emails a notice and ends every other session but the current one", async () => {
      const other = await secondSession(alice);
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const confirmed = await expectJson(
        await kith.request("POST", "/api/v1/accounts/password/change/confirm", {
          token: alice.token,
          json: { code: lastCode("alice@kith.test") },
        }),
      );
      expect(confirmed).toEqual({ changed: true, signedOutSessions: 1 });
      expect(await signsIn("alice", "a new secret phrase")).toBe(true);
      expect(await signsIn("alice", alice.password)).toBe(false);
      expect(kith.mail.lastTo("alice@kith.test")?.subject).toMatch(/was changed/);
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: other })).status).toBe(401);
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: alice.token })).status).toBe(200);
      const audit = await expectJson(await kith.request("GET", "/api/v1/accounts/login_methods/audit", { token: alice.token }));
      expect(audit.map((entry: InspectedJson) => entry.action)).toEqual(["password.changed"]);
    });

    it("request refuses a wrong current password (422) and a too short new one (422)", async () => {
      expect((await expectJson(await request(alice.token, "not my password", "a new secret phrase"), 422)).code).toBe(
        "credentials.wrong_password",
      );
      expect((await expectJson(await request(alice.token, alice.password, "short"), 422)).code).toBe("credentials.invalid_password");
      expect(kith.mail.sent).toHaveLength(0);
    });

    it("request answers 400 without the fields", async () => {
      expect((await kith.request("POST", "/api/v1/accounts/password/change/request", { token: alice.token, json: {} })).status).toBe(400);
    });

    it("confirm without a change in progress is refused with 409", async () => {
      const refused = await expectJson(
        await kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: "123456" } }),
        409,
      );
      expect(refused.code).toBe("credentials.no_pending_change");
    });

    it("confirm refuses a wrong code, and an expired one", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const code = lastCode("alice@kith.test");
      const wrong = await expectJson(
        await kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: wrongCode(code) } }),
        422,
      );
      expect(wrong.code).toBe("credentials.code_invalid");
      kith.clock.advance(15 * 60 * 1000 + 1);
      const expired = await kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code } });
      expect(expired.status).toBe(409);
      expect(await signsIn("alice", alice.password)).toBe(true);
    });

    it("a code is spent after five wrong tries, even the right one afterwards", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const code = lastCode("alice@kith.test");
      const confirm = (value: string) =>
        kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: value } });
      for (let i = 0; i < 4; i++) expect((await expectJson(await confirm(wrongCode(code)), 422)).code).toBe("credentials.code_invalid");
      expect((await expectJson(await confirm(wrongCode(code)), 422)).code).toBe("credentials.code_attempts_exceeded");
      expect((await expectJson(await confirm(code), 422)).code).toBe("credentials.code_invalid");
      expect(await signsIn("alice", alice.password)).toBe(true);
    });

    it("a code works once: of two concurrent confirmations, exactly one succeeds", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const code = lastCode("alice@kith.test");
      const confirm = () => kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code } });
      const statuses = (await Promise.all([confirm(), confirm()])).map((response) => response.status).sort();
      expect(statuses[0]).toBe(200);
      expect(statuses[1]).toBeGreaterThanOrEqual(409);
      expect(kith.mail.sent.filter((message) => /was changed/.test(message.subject))).toHaveLength(1);
    });

    it("resend-code sends a new code that replaces the old one", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const first = lastCode("alice@kith.test");
      await expectJson(await kith.request("PUT", "/api/v1/accounts/password/change/resend-code", { token: alice.token }));
      const second = lastCode("alice@kith.test");
      if (first !== second) {
        const old = await kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: first } });
        expect(old.status).toBe(422);
      }
      await expectJson(
        await kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: second } }),
      );
      expect(await signsIn("alice", "a new secret phrase")).toBe(true);
    });

    it("resend-code without a change in progress is refused with 409", async () => {
      expect((await kith.request("PUT", "/api/v1/accounts/password/change/resend-code", { token: alice.token })).status).toBe(409);
    });

    it("resend-code is rate limited: 429 with Retry-After, and allowed again when the window ends", async () => {
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      const resend = () => kith.request("PUT", "/api/v1/accounts/password/change/resend-code", { token: alice.token });
      for (let i = 0; i < 3; i++) await expectJson(await resend());
      const limited = await resend();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      kith.clock.advance(15 * 60 * 1000);
      // The pending change expired with the window; a new request and resend work again.
      await expectJson(await request(alice.token, alice.password, "a new secret phrase"));
      await expectJson(await resend());
    });

    it("needs a signed-in user", async () => {
      expect(
        (await kith.request("POST", "/api/v1/accounts/password/change/request", { json: { currentPassword: "x", newPassword: "y" } })).status,
      ).toBe(401);
      expect((await kith.request("POST", "/api/v1/accounts/password/change/confirm", { json: { code: "1" } })).status).toBe(401);
      expect((await kith.request("PUT", "/api/v1/accounts/password/change/resend-code")).status).toBe(401);
    });
  });

  describe("password recovery", () => {
    const recover = (json: Record<string, string>, headers: { clientIp?: string } = {}) =>
      kith.request("POST", "/api/v1/accounts/password/recover", { json, ...headers });
    const check = (json: Record<string, string>) => kith.request("POST", "/api/v1/accounts/password/recover/check-code", { json });
    const change = (json: Record<string, string>) => kith.request("POST", "/api/v1/accounts/password/recover/change", { json });

    it("runs the three steps by email: code, check, change; ends every session and mails a notice", async () => {
      const other = await secondSession(alice);
      expect(await expectJson(await recover({ identifier: "alice@kith.test" }), 202)).toEqual({ accepted: true });
      const code = lastCode("alice@kith.test");
      expect(await expectJson(await check({ identifier: "alice@kith.test", code }))).toEqual({ checked: true });
      expect(await expectJson(await change({ identifier: "alice@kith.test", code, newPassword: "recovered phrase" }))).toEqual({
        changed: true,
      });
      expect(await signsIn("alice", "recovered phrase")).toBe(true);
      expect(await signsIn("alice", alice.password)).toBe(false);
      for (const token of [alice.token, other]) {
        expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token })).status).toBe(401);
      }
      expect(kith.mail.lastTo("alice@kith.test")?.subject).toMatch(/was changed/);
    });

    it("accepts the username as identifier, and email or username fields", async () => {
      await expectJson(await recover({ username: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      await expectJson(await check({ email: "alice@kith.test", code }));
      await expectJson(await change({ username: "ALICE", code, newPassword: "recovered phrase" }));
      expect(await signsIn("alice", "recovered phrase")).toBe(true);
    });

    it("answers the same for an account that does not exist, and mails nothing", async () => {
      const known = await recover({ identifier: "alice" });
      const unknown = await recover({ identifier: "nobody@nowhere.example" });
      expect(unknown.status).toBe(known.status);
      expect(await unknown.json()).toEqual(await known.json());
      expect(kith.mail.sent.map((message) => message.to)).toEqual(["alice@kith.test"]);
    });

    it("change without a checked code is refused with 409", async () => {
      await expectJson(await recover({ identifier: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      expect((await expectJson(await change({ identifier: "alice", code, newPassword: "recovered phrase" }), 409)).code).toBe(
        "credentials.recovery_not_checked",
      );
      expect(await signsIn("alice", alice.password)).toBe(true);
    });

    it("the checked flag works once and expires", async () => {
      await expectJson(await recover({ identifier: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      await expectJson(await check({ identifier: "alice", code }));
      kith.clock.advance(15 * 60 * 1000 + 1);
      expect((await change({ identifier: "alice", code, newPassword: "recovered phrase" })).status).toBe(409);
      await expectJson(await recover({ identifier: "alice" }), 202);
      const next = lastCode("alice@kith.test");
      await expectJson(await check({ identifier: "alice", code: next }));
      await expectJson(await change({ identifier: "alice", code: next, newPassword: "recovered phrase" }));
      expect((await change({ identifier: "alice", code: next, newPassword: "another phrase!" })).status).toBe(409);
    });

    it("check-code refuses a wrong code, an expired code, a used code and an unknown account alike (422)", async () => {
      await expectJson(await recover({ identifier: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      expect((await expectJson(await check({ identifier: "alice", code: wrongCode(code) }), 422)).code).toBe("credentials.code_invalid");
      expect((await expectJson(await check({ identifier: "nobody", code }), 422)).code).toBe("credentials.code_invalid");
      await expectJson(await check({ identifier: "alice", code }));
      expect((await expectJson(await check({ identifier: "alice", code }), 422)).code).toBe("credentials.code_invalid");
      kith.clock.advance(60 * 60 * 1000);
      await expectJson(await recover({ identifier: "alice" }), 202);
      const late = lastCode("alice@kith.test");
      kith.clock.advance(15 * 60 * 1000 + 1);
      expect((await expectJson(await check({ identifier: "alice", code: late }), 422)).code).toBe("credentials.code_invalid");
    });

    it("two concurrent checks of one code: exactly one succeeds", async () => {
      await expectJson(await recover({ identifier: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      const statuses = (await Promise.all([check({ identifier: "alice", code }), check({ identifier: "alice", code })])).map((r) => r.status);
      expect(statuses.sort()).toEqual([200, 422]);
    });

    it("change refuses a too short password (422)", async () => {
      await expectJson(await recover({ identifier: "alice" }), 202);
      const code = lastCode("alice@kith.test");
      await expectJson(await check({ identifier: "alice", code }));
      expect((await expectJson(await change({ identifier: "alice", code, newPassword: "short" }), 422)).code).toBe(
        "credentials.invalid_password",
      );
    });

    it("is refused with a valid token, on every step (403)", async () => {
      for (const path of [
        "/api/v1/accounts/password/recover",
        "/api/v1/accounts/password/recover/check-code",
        "/api/v1/accounts/password/recover/change",
      ]) {
        const refused = await expectJson(
          await kith.request("POST", path, {
            token: alice.token,
            json: { identifier: "alice", code: "123456", newPassword: "recovered phrase" },
          }),
          403,
        );
        expect(refused.code).toBe("auth.must_not_be_authenticated");
      }
      expect(kith.mail.sent).toHaveLength(0);
    });

    it("answers 422 without an identifier (none of identifier, email, username)", async () => {
      expect((await recover({})).status).toBe(422);
    });

    it("counts an account's username and its email under one recovery limit", async () => {
      for (const identifier of ["alice", "alice@kith.test", "ALICE"]) await expectJson(await recover({ identifier }), 202);
      expect((await recover({ identifier: "Alice@Kith.test" })).status).toBe(429);
      expect((await recover({ identifier: "alice" })).status).toBe(429);
    });

    it("is rate limited per identifier and per address: 429 with Retry-After", async () => {
      for (let i = 0; i < 3; i++) await expectJson(await recover({ identifier: "alice" }), 202);
      const limited = await recover({ identifier: "alice" });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // Unknown identifiers are limited the same way, so the limit tells nothing either.
      for (let i = 0; i < 3; i++) await expectJson(await recover({ identifier: "ghost" }), 202);
      expect((await recover({ identifier: "ghost" })).status).toBe(429);
      for (let i = 0; i < 2; i++) await expectJson(await recover({ identifier: `someone${i}` }), 202);
      const byAddress = await recover({ identifier: "someone-else" });
      expect(byAddress.status).toBe(429);
      expect((await recover({ identifier: "someone-else" }, { clientIp: "10.0.0.9" })).status).toBe(202);
      kith.clock.advance(60 * 60 * 1000);
      expect((await recover({ identifier: "alice" })).status).toBe(202);
    });
  });
});
