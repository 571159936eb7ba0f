import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";
import { expectJson, type InspectedJson } from "../support/expect-json.js";

let kith: TestKith;
let alice: TestUser;
const BASE = "/api/v1/accounts/login_methods";

function codeIn(text: string | undefined): string {
  const match = /(\d{6})/.exec(text ?? "");
  if (!match?.[1]) throw new Error("No code sent");
  return match[1];
}

async function addPhone(user: TestUser, phone: string): Promise<void> {
  await expectJson(await kith.request("POST", `${BASE}/phone`, { token: user.token, json: { phone } }));
  const code = codeIn(kith.sms.sent.at(-1)?.body);
  await expectJson(await kith.request("POST", `${BASE}/phone/verify`, { token: user.token, json: { code } }));
}

describeOnEngines("login methods", (engine) => {
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
  });
  afterEach(async () => {
    await kith.close();
  });

  it("lists the email method of a new account", async () => {
    expect(await expectJson(await kith.request("GET", BASE, { token: alice.token }))).toEqual([
      { type: "email", identifier: "alice@kith.test", verified: true },
    ]);
  });

  it("adds a phone after the texted code; the number is normalised to E.164", async () => {
    const sent = await expectJson(
      await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "+1 (415) 555-2671" } }),
    );
    expect(sent.sentTo).toBe("+14155552671");
    expect(kith.sms.lastTo("+14155552671")).toBeDefined();
    // Not added until verified.
    expect(await expectJson(await kith.request("GET", BASE, { token: alice.token }))).toHaveLength(1);
    const code = codeIn(kith.sms.lastTo("+14155552671")?.body);
    const methods = await expectJson(await kith.request("POST", `${BASE}/phone/verify`, { token: alice.token, json: { code } }));
    expect(methods).toContainEqual({ type: "phone", identifier: "+14155552671", verified: true });
  });

  it("refuses an invalid number (422), a number another account has (422) and a second phone (409)", async () => {
    expect(
      (await expectJson(await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "+1 123" } }), 422)).code,
    ).toBe("phone.invalid");
    expect(
      (await expectJson(await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "4155552671" } }), 422)).code,
    ).toBe("phone.invalid");
    const bob = await kith.createUser("bob");
    await addPhone(bob, "+14155552671");
    expect(
      (await expectJson(await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "+14155552671" } }), 422)).code,
    ).toBe("phone.taken");
    await addPhone(alice, "+442071838750");
    expect(
      (await expectJson(await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "+33612345678" } }), 409)).code,
    ).toBe("login_method.exists");
  });

  it("refuses a wrong or expired code for a phone", async () => {
    await expectJson(await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: "+14155552671" } }));
    const code = codeIn(kith.sms.sent.at(-1)?.body);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(
      (await expectJson(await kith.request("POST", `${BASE}/phone/verify`, { token: alice.token, json: { code: wrong } }), 422)).code,
    ).toBe("credentials.code_invalid");
    kith.clock.advance(15 * 60 * 1000 + 1);
    expect((await kith.request("POST", `${BASE}/phone/verify`, { token: alice.token, json: { code } })).status).toBe(422);
  });

  it("refuses removing the last remaining login identifier with 409", async () => {
    const refused = await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }), 409);
    expect(refused.code).toBe("login_method.last_identifier");
    expect(await expectJson(await kith.request("GET", BASE, { token: alice.token }))).toHaveLength(1);
  });

  it("removes the email method when a phone remains (the password goes), then refuses removing the phone", async () => {
    await addPhone(alice, "+14155552671");
    const methods = await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }));
    expect(methods).toEqual([{ type: "phone", identifier: "+14155552671", verified: true }]);
    expect((await kith.services.oauth.signIn("alice", alice.password, null)).ok).toBe(false);
    expect((await expectJson(await kith.request("DELETE", `${BASE}/phone`, { token: alice.token }), 409)).code).toBe(
      "login_method.last_identifier",
    );
    expect((await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }), 404)).code).toBe(
      "login_method.not_found",
    );
  });

  it("of two concurrent removals, of the email and of the phone, exactly one succeeds and one identifier remains", async () => {
    await addPhone(alice, "+14155552671");
    const [email, phone] = await Promise.all([
      kith.request("DELETE", `${BASE}/email`, { token: alice.token }),
      kith.request("DELETE", `${BASE}/phone`, { token: alice.token }),
    ]);
    expect([email.status, phone.status].sort()).toEqual([200, 409]);
    expect(await expectJson(await kith.request("GET", BASE, { token: alice.token }))).toHaveLength(1);
  });

  it("adds the email method back after the mailed code, with a new address and password", async () => {
    await addPhone(alice, "+14155552671");
    await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }));
    const sent = await expectJson(
      await kith.request("POST", `${BASE}/email`, {
        token: alice.token,
        json: { email: "Alice@New.Example", password: "brand new phrase" },
      }),
    );
    expect(sent.sentTo).toBe("alice@new.example");
    const code = codeIn(kith.mail.lastTo("alice@new.example")?.text);
    const methods = await expectJson(await kith.request("POST", `${BASE}/email/verify`, { token: alice.token, json: { code } }));
    expect(methods).toContainEqual({ type: "email", identifier: "alice@new.example", verified: true });
    expect((await kith.services.oauth.signIn("alice@new.example", "brand new phrase", null)).ok).toBe(true);
  });

  it("refuses adding email when it is set up (409), an invalid address (422), a taken one (422), a short password (422)", async () => {
    const add = (email: string, password: string) =>
      kith.request("POST", `${BASE}/email`, { token: alice.token, json: { email, password } });
    expect((await expectJson(await add("x@kith.test", "long enough phrase"), 409)).code).toBe("login_method.exists");
    await addPhone(alice, "+14155552671");
    await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }));
    await kith.createUser("bob");
    expect((await expectJson(await add("not an address", "long enough phrase"), 422)).code).toBe("account.invalid_email");
    expect((await expectJson(await add("bob@kith.test", "long enough phrase"), 422)).code).toBe("login_method.email_taken");
    expect((await expectJson(await add("alice@kith.test", "short"), 422)).code).toBe("credentials.invalid_password");
  });

  it("writes every change to the audit log, newest first, readable by the user with pagination", async () => {
    await addPhone(alice, "+14155552671");
    await expectJson(await kith.request("DELETE", `${BASE}/email`, { token: alice.token }));
    const audit = await expectJson(await kith.request("GET", `${BASE}/audit`, { token: alice.token }));
    expect(audit.map((entry: InspectedJson) => [entry.action, entry.method])).toEqual([
      ["login_method.removed", "email"],
      ["login_method.added", "phone"],
    ]);
    expect(audit[1].detail).toBe("+1*******671");
    expect(audit[0].detail).toBe("a***@kith.test");
    const page = await kith.request("GET", `${BASE}/audit?limit=1`, { token: alice.token });
    expect(page.headers.get("link")).toContain("max_id=");
    expect(await expectJson(page)).toHaveLength(1);
  });

  it("lets administrators with Users.Read read an account's audit log; others get 403", async () => {
    await addPhone(alice, "+14155552671");
    const admin = await kith.createUser("auditor");
    expect((await kith.request("GET", `/api/v1/admin/accounts/${alice.account.id}/login_audit`, { token: admin.token })).status).toBe(403);
    await giveGrants(kith, admin.account.id, [{ resource: "Users", access: ["Read"], scope: "global" }]);
    const audit = await expectJson(
      await kith.request("GET", `/api/v1/admin/accounts/${alice.account.id}/login_audit`, { token: admin.token }),
    );
    expect(audit.map((entry: InspectedJson) => entry.action)).toEqual(["login_method.added"]);
    expect(audit[0].accountId).toBe(alice.account.id);
    expect(
      (await kith.request("GET", "/api/v1/admin/accounts/us_00000000000000000000000000/login_audit", { token: admin.token })).status,
    ).toBe(404);
  });

  it("code sends are rate limited per account: 429 with Retry-After", async () => {
    let last: Response | undefined;
    // A different number each time: the number's own limit is not what is tested here.
    for (let i = 0; i < 11; i++)
      last = await kith.request("POST", `${BASE}/phone`, { token: alice.token, json: { phone: `+1415555${2660 + i}` } });
    expect(last?.status).toBe(429);
    expect(await last?.json()).toMatchObject({ error: "Too many codes sent; try again later" });
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("codes texted to one number are limited whichever accounts ask", async () => {
    const bob = await kith.createUser("bob");
    const victim = "+14155552671";
    const send = (user: TestUser, phone: string) => kith.request("POST", `${BASE}/phone`, { token: user.token, json: { phone } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(i % 2 === 0 ? alice : bob, victim)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(kith.sms.sent.filter((message) => message.to === victim)).toHaveLength(5);
    // Other numbers, and the same accounts, are not held back by it.
    expect((await send(bob, "+442071838750")).status).toBe(200);
  });

  it("needs a signed-in user", async () => {
    expect((await kith.request("GET", BASE)).status).toBe(401);
    expect((await kith.request("DELETE", `${BASE}/phone`)).status).toBe(401);
    expect((await kith.request("GET", `${BASE}/audit`)).status).toBe(401);
  });
});
