/**
 * Signup requests of approval mode: list, read, approve, reject, with
 * Signups.Read / Signups.Manage, and the state rules (409 when not pending).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccessType } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { appToken, confirmationLink, pathOf, signUp, signupFields } from "../support/registration.js";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";

const SIGNUPS = "/api/v1/admin/signups";

describeOnEngines("signup requests", (engine) => {
  let kith: TestKith;
  let app: string;
  let serial = 0;

  beforeEach(async () => {
    kith = await engine.testKith();
    ({ token: app } = await appToken(kith));
    await kith.services.settings.update({ registrationsMode: "approval" });
  });
  afterEach(() => kith.close());

  async function pending(username: string): Promise<{ id: string; token: string }> {
    const response = await signUp(kith, app, signupFields(username, { reason: `${username} wants in` }), {
      clientIp: `203.0.113.${++serial}`,
    });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    return { id: (await kith.services.accounts.findByUsername(username)).id, token };
  }

  async function reviewer(access: AccessType[] | null): Promise<string> {
    const user = await kith.createUser(`reviewer${++serial}`);
    if (access) await giveGrants(kith, user.account.id, [{ resource: "Signups", access, scope: "global" }]);
    return user.token;
  }

  describe("permissions", () => {
    it("answers 401 without a token and 403 without Signups", async () => {
      const { id } = await pending("alice");
      const none = await reviewer(null);
      for (const [method, path] of [
        ["GET", SIGNUPS],
        ["GET", `${SIGNUPS}/${id}`],
        ["POST", `${SIGNUPS}/${id}/approve`],
        ["POST", `${SIGNUPS}/${id}/reject`],
      ] as const) {
        expect((await kith.request(method, path)).status, `${method} ${path}`).toBe(401);
        expect((await kith.request(method, path, { token: none })).status, `${method} ${path}`).toBe(403);
      }
    });

    it("lets Signups.Read read but not approve or reject", async () => {
      const { id } = await pending("alice");
      const token = await reviewer(["Read"]);
      expect((await kith.request("GET", SIGNUPS, { token })).status).toBe(200);
      expect((await kith.request("GET", `${SIGNUPS}/${id}`, { token })).status).toBe(200);
      expect((await kith.request("POST", `${SIGNUPS}/${id}/approve`, { token })).status).toBe(403);
      expect((await kith.request("POST", `${SIGNUPS}/${id}/reject`, { token })).status).toBe(403);
      expect((await kith.services.accounts.findById(id)).approved).toBe(false);
    });
  });

  describe("review", () => {
    let token: string;
    beforeEach(async () => {
      token = await reviewer(["Read", "Add", "Modify", "Delete"]);
    });

    it("lists pending accounts newest first with their reasons, paginated", async () => {
      await pending("alice");
      await pending("bob");
      await pending("carol");
      await kith.createUser("approved_user");
      const first = await kith.request("GET", `${SIGNUPS}?limit=2`, { token });
      expect(first.status).toBe(200);
      const page = (await first.json()) as Array<Record<string, unknown>>;
      expect(page.map((entry) => entry.username)).toEqual(["carol", "bob"]);
      expect(page[0]).toMatchObject({
        email: "carol@example.com",
        invite_request: "carol wants in",
        locale: "en",
        confirmed: false,
        approved: false,
        account: { username: "carol", acct: "carol" },
      });
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1] as string;
      const url = new URL(next);
      const second = await kith.request("GET", `${url.pathname}${url.search}`, { token });
      expect(((await second.json()) as Array<Record<string, unknown>>).map((entry) => entry.username)).toEqual(["alice"]);
    });

    it("shows one pending account; an unknown or approved one is 404", async () => {
      const { id } = await pending("alice");
      expect(await (await kith.request("GET", `${SIGNUPS}/${id}`, { token })).json()).toMatchObject({ id, username: "alice" });
      const approved = await kith.createUser("member");
      expect((await kith.request("GET", `${SIGNUPS}/${approved.account.id}`, { token })).status).toBe(404);
      expect((await kith.request("GET", `${SIGNUPS}/us_unknown`, { token })).status).toBe(404);
    });

    it("approves: the account can then sign in, the person gets a mail, and a second approval is 409", async () => {
      const { id, token: userToken } = await pending("alice");
      await kith.request("GET", pathOf(confirmationLink(kith, "alice@example.com")));
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken })).status).toBe(401);
      const approved = await kith.request("POST", `${SIGNUPS}/${id}/approve`, { token });
      expect(approved.status).toBe(200);
      expect(await approved.json()).toMatchObject({ id, approved: true, confirmed: true });
      expect(kith.mail.lastTo("alice@example.com")?.subject).toMatch(/approved/i);
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken })).status).toBe(200);
      const again = await kith.request("POST", `${SIGNUPS}/${id}/approve`, { token });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: "signup.not_pending" });
      expect((await kith.request("POST", `${SIGNUPS}/${id}/reject`, { token })).status).toBe(409);
      expect(await (await kith.request("GET", SIGNUPS, { token })).json()).toEqual([]);
    });

    it("rejects: the account and user are removed, the person gets a mail, the address can sign up again", async () => {
      const { id, token: userToken } = await pending("alice");
      const link = pathOf(confirmationLink(kith, "alice@example.com"));
      const rejected = await kith.request("POST", `${SIGNUPS}/${id}/reject`, { token });
      expect(rejected.status).toBe(200);
      expect(await rejected.json()).toMatchObject({ id, username: "alice" });
      expect(kith.mail.lastTo("alice@example.com")?.subject).toMatch(/not approved/i);
      expect(await kith.storage.db.selectFrom("users").selectAll().where("account_id", "=", id).execute()).toEqual([]);
      expect(await kith.storage.db.selectFrom("accounts").selectAll().where("id", "=", id).execute()).toEqual([]);
      expect(await kith.storage.db.selectFrom("sessions").selectAll().where("account_id", "=", id).execute()).toEqual([]);
      expect((await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: userToken })).status).toBe(401);
      // The confirmation link of the removed account confirms nothing, and the account is gone for the reviewer too.
      expect((await kith.request("GET", link)).status).toBe(404);
      expect((await kith.request("POST", `${SIGNUPS}/${id}/reject`, { token })).status).toBe(404);
      expect((await signUp(kith, app, signupFields("alice", { reason: "again" }), { clientIp: "203.0.113.250" })).status).toBe(200);
    });

    it("refuses to approve or reject an account that was never pending (409) or does not exist (404)", async () => {
      const member = await kith.createUser("member");
      expect((await kith.request("POST", `${SIGNUPS}/${member.account.id}/approve`, { token })).status).toBe(409);
      expect((await kith.request("POST", `${SIGNUPS}/${member.account.id}/reject`, { token })).status).toBe(409);
      expect((await kith.services.accounts.findById(member.account.id)).approved).toBe(true);
      expect((await kith.request("POST", `${SIGNUPS}/us_unknown/approve`, { token })).status).toBe(404);
      expect((await kith.request("POST", `${SIGNUPS}/us_unknown/reject`, { token })).status).toBe(404);
    });
  });
});
