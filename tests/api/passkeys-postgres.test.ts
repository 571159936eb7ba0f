/**
 * The credential flows on PostgreSQL: codes consumed once under concurrency,
 * wrong tries counted in one statement, the signature counter moved forward
 * only, phone uniqueness, the audit log paged by id, rate counters.
 */
import { createTestKith, type TestKith, type TestUser } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";
import { SoftwareAuthenticator, toEntries } from "../support/software-authenticator.js";
import { expectJson, type InspectedJson } from "../support/expect-json.js";

describeIfPostgres("credentials on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let kith: TestKith;
  let alice: TestUser;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    kith = await createTestKith({ storage: () => createPostgresStorage({ connectionString: database.url, max: 4 }) });
    alice = await kith.createUser("pgalice");
  });
  afterAll(async () => {
    await kith?.close();
    await database?.drop();
  });

  const code = (text: string | undefined): string => /(\d{6})/.exec(text ?? "")?.[1] ?? "";

  it("changes the password with one code used once under concurrency, counting wrong tries", async () => {
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/password/change/request", {
        token: alice.token,
        json: { currentPassword: alice.password, newPassword: "postgres phrase" },
      }),
    );
    const right = code(kith.mail.lastTo("pgalice@kith.test")?.text);
    const wrong = right === "000000" ? "111111" : "000000";
    const confirm = (value: string) =>
      kith.request("POST", "/api/v1/accounts/password/change/confirm", { token: alice.token, json: { code: value } });
    expect((await expectJson(await confirm(wrong), 422)).code).toBe("credentials.code_invalid");
    const statuses = (await Promise.all([confirm(right), confirm(right), confirm(right)])).map((r) => r.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect((await kith.services.oauth.signIn("pgalice", "postgres phrase", null)).ok).toBe(true);
  });

  it("recovers a password and rate limits recovery with Retry-After", async () => {
    await expectJson(await kith.request("POST", "/api/v1/accounts/password/recover", { json: { identifier: "pgalice" } }), 202);
    const value = code(kith.mail.lastTo("pgalice@kith.test")?.text);
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/password/recover/check-code", { json: { identifier: "pgalice", code: value } }),
    );
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/password/recover/change", {
        json: { identifier: "pgalice", code: value, newPassword: "recovered on pg" },
      }),
    );
    expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: alice.token })).status).toBe(401);
    for (let i = 0; i < 2; i++) await kith.request("POST", "/api/v1/accounts/password/recover", { json: { identifier: "pgalice" } });
    const limited = await kith.request("POST", "/api/v1/accounts/password/recover", { json: { identifier: "pgalice" } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    alice = {
      ...alice,
      token: (await kith.services.sessions.issue({ accountId: alice.account.id, scopes: ["read", "write"] })).accessToken,
    };
  });

  it("adds a phone, changes it in four steps, and audits both", async () => {
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/login_methods/phone", { token: alice.token, json: { phone: "+14155552671" } }),
    );
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/login_methods/phone/verify", {
        token: alice.token,
        json: { code: code(kith.sms.lastTo("+14155552671")?.body) },
      }),
    );
    const step = (path: string, body?: unknown) =>
      kith.request("POST", `/api/v1/accounts/phone/change/${path}`, { token: alice.token, ...(body !== undefined && { json: body }) });
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: code(kith.sms.lastTo("+14155552671")?.body) }));
    await expectJson(await step("new-number", { phone: "+33612345678" }));
    await expectJson(await step("verify-new", { code: code(kith.sms.lastTo("+33612345678")?.body) }));
    await expectJson(await kith.request("DELETE", "/api/v1/accounts/login_methods/email", { token: alice.token }));
    expect((await kith.request("DELETE", "/api/v1/accounts/login_methods/phone", { token: alice.token })).status).toBe(409);
    const audit = await expectJson(await kith.request("GET", "/api/v1/accounts/login_methods/audit?limit=2", { token: alice.token }));
    expect(audit.map((entry: InspectedJson) => entry.action)).toEqual(["login_method.removed", "phone.changed"]);
  });

  it("of concurrent removals of the email and the phone, one succeeds and an identifier remains", async () => {
    const bob = await kith.createUser("pgbob");
    const base = "/api/v1/accounts/login_methods";
    await expectJson(await kith.request("POST", `${base}/phone`, { token: bob.token, json: { phone: "+14155550123" } }));
    await expectJson(
      await kith.request("POST", `${base}/phone/verify`, { token: bob.token, json: { code: code(kith.sms.lastTo("+14155550123")?.body) } }),
    );
    for (let round = 0; round < 3; round += 1) {
      const statuses = await Promise.all([
        kith.request("DELETE", `${base}/email`, { token: bob.token }).then((response) => response.status),
        kith.request("DELETE", `${base}/phone`, { token: bob.token }).then((response) => response.status),
      ]);
      expect(statuses.sort()).toEqual([200, 409]);
      const left = await expectJson(await kith.request("GET", base, { token: bob.token }));
      expect(left).toHaveLength(1);
      // Back to both methods for the next round.
      if (left[0].type === "email") {
        await expectJson(await kith.request("POST", `${base}/phone`, { token: bob.token, json: { phone: "+14155550123" } }));
        await expectJson(
          await kith.request("POST", `${base}/phone/verify`, { token: bob.token, json: { code: code(kith.sms.lastTo("+14155550123")?.body) } }),
        );
      } else {
        await expectJson(
          await kith.request("POST", `${base}/email`, { token: bob.token, json: { email: "pgbob@kith.test", password: "another long phrase" } }),
        );
        await expectJson(
          await kith.request("POST", `${base}/email/verify`, { token: bob.token, json: { code: code(kith.mail.lastTo("pgbob@kith.test")?.text) } }),
        );
      }
    }
  });

  it("registers a passkey and signs in with it, refusing a replay and a cloned counter", async () => {
    const authenticator = new SoftwareAuthenticator("https://kith.test");
    const options = await expectJson(await kith.request("GET", "/api/v1/passkeys/begin-register", { token: alice.token }));
    await expectJson(
      await kith.request("POST", "/api/v1/passkeys/finish-register", {
        token: alice.token,
        json: toEntries(authenticator.register(options)),
      }),
    );
    const begin = async () => expectJson(await kith.request("GET", "/api/v1/passkeys/begin-auth?username=pgalice"));
    const body = toEntries(authenticator.assert(await begin()));
    const { sessionKey } = await expectJson(await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: body }));
    expect((await kith.request("GET", "/api/v1/passkeys", { token: sessionKey })).status).toBe(200);
    expect((await kith.request("POST", "/api/v1/passkeys/finish-auth", { json: body })).status).toBe(422);
    const clone = await kith.request("POST", "/api/v1/passkeys/finish-auth", {
      json: toEntries(authenticator.assert(await begin(), { counter: authenticator.counter })),
    });
    expect(clone.status).toBe(409);
    const [stored] = await expectJson(await kith.request("GET", "/api/v1/passkeys", { token: alice.token }));
    expect(stored.signCount).toBe(1);
  });
});
