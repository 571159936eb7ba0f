import type { TestKith, TestUser } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { expectJson, type InspectedJson } from "../support/expect-json.js";

let kith: TestKith;
let alice: TestUser;
const BASE = "/api/v1/accounts/phone/change";
const OLD = "+14155552671";
const NEW = "+442071838750";

function smsCode(phone: string): string {
  const match = /(\d{6})/.exec(kith.sms.lastTo(phone)?.body ?? "");
  if (!match?.[1]) throw new Error(`No code texted to ${phone}`);
  return match[1];
}

const step = (path: string, json?: unknown) =>
  kith.request("POST", `${BASE}/${path}`, { token: alice.token, ...(json !== undefined && { json }) });

async function phoneOf(): Promise<string | undefined> {
  const methods = await expectJson(await kith.request("GET", "/api/v1/accounts/login_methods", { token: alice.token }));
  return methods.find((method: InspectedJson) => method.type === "phone")?.identifier;
}

describeOnEngines("phone number change", (engine) => {
  beforeEach(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    await expectJson(await kith.request("POST", "/api/v1/accounts/login_methods/phone", { token: alice.token, json: { phone: OLD } }));
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/login_methods/phone/verify", { token: alice.token, json: { code: smsCode(OLD) } }),
    );
  });
  afterEach(async () => {
    await kith.close();
  });

  it("runs the four steps: code to the current phone, verify it, new number with its code, verify it", async () => {
    const first = await expectJson(await step("request"));
    expect(first.sentTo).toBe("+1*******671");
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    const third = await expectJson(await step("new-number", { phone: "+44 20 7183 8750" }));
    expect(third.sentTo).toBe(NEW);
    expect(await phoneOf()).toBe(OLD);
    expect(await expectJson(await step("verify-new", { code: smsCode(NEW) }))).toEqual({ phone: NEW });
    expect(await phoneOf()).toBe(NEW);
    expect(kith.sms.lastTo(OLD)?.body).toMatch(/changed/);
    const audit = await expectJson(await kith.request("GET", "/api/v1/accounts/login_methods/audit", { token: alice.token }));
    expect(audit[0]).toMatchObject({ action: "phone.changed", method: "phone", detail: "+1*******671 -> +4********750" });
  });

  it("refuses step 3 and step 4 before the current phone is verified (409)", async () => {
    await expectJson(await step("request"));
    expect((await expectJson(await step("new-number", { phone: NEW }), 409)).code).toBe("phone.current_not_verified");
    expect((await expectJson(await step("verify-new", { code: "123456" }), 409)).code).toBe("phone.current_not_verified");
  });

  it("refuses a wrong code for the current phone, and an expired one", async () => {
    await expectJson(await step("request"));
    const code = smsCode(OLD);
    expect((await expectJson(await step("verify-current", { code: code === "000000" ? "111111" : "000000" }), 422)).code).toBe(
      "credentials.code_invalid",
    );
    kith.clock.advance(15 * 60 * 1000 + 1);
    expect((await step("verify-current", { code })).status).toBe(422);
  });

  it("the verified current phone lets a new number be given only for a while", async () => {
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    kith.clock.advance(15 * 60 * 1000 + 1);
    expect((await step("new-number", { phone: NEW })).status).toBe(409);
  });

  it("refuses an invalid new number (422) and the current number (422)", async () => {
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    expect((await expectJson(await step("new-number", { phone: "+44 20" }), 422)).code).toBe("phone.invalid");
    expect((await expectJson(await step("new-number", { phone: "+1 415 555 2671" }), 422)).code).toBe("phone.same_number");
  });

  it("refuses a wrong code for the new number and keeps the old one", async () => {
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    await expectJson(await step("new-number", { phone: NEW }));
    const code = smsCode(NEW);
    expect((await step("verify-new", { code: code === "000000" ? "111111" : "000000" })).status).toBe(422);
    expect(await phoneOf()).toBe(OLD);
  });

  it("refuses a number another account took meanwhile (422)", async () => {
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    await expectJson(await step("new-number", { phone: NEW }));
    const code = smsCode(NEW);
    const bob = await kith.createUser("bob");
    await expectJson(await kith.request("POST", "/api/v1/accounts/login_methods/phone", { token: bob.token, json: { phone: NEW } }));
    await expectJson(
      await kith.request("POST", "/api/v1/accounts/login_methods/phone/verify", { token: bob.token, json: { code: smsCode(NEW) } }),
    );
    expect((await expectJson(await step("verify-new", { code }), 422)).code).toBe("phone.taken");
  });

  it("refuses a change for an account without a phone (409)", async () => {
    const bob = await kith.createUser("bob");
    const refused = await kith.request("POST", `${BASE}/request`, { token: bob.token });
    expect((await expectJson(refused, 409)).code).toBe("phone.none");
  });

  it("two concurrent uses of the new number's code: exactly one succeeds", async () => {
    await expectJson(await step("request"));
    await expectJson(await step("verify-current", { code: smsCode(OLD) }));
    await expectJson(await step("new-number", { phone: NEW }));
    const code = smsCode(NEW);
    const statuses = (await Promise.all([step("verify-new", { code }), step("verify-new", { code })])).map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect(statuses[1]).toBeGreaterThanOrEqual(409);
  });

  it("needs a signed-in user", async () => {
    expect((await kith.request("POST", `${BASE}/request`)).status).toBe(401);
  });
});
