import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { type RegisteredApp, registerApp } from "../support/oauth.js";
import { describeOnEngines } from "../support/engines.js";

const BASE = "/api/v1/admin/accounts";
const ME = "/api/v1/accounts/verify_credentials";

const ADMIN_ACCOUNT_KEYS = [
  "id",
  "username",
  "domain",
  "created_at",
  "email",
  "ip",
  "ips",
  "locale",
  "invite_request",
  "role",
  "confirmed",
  "approved",
  "disabled",
  "sensitized",
  "silenced",
  "suspended",
  "account",
  "created_by_application_id",
  "invited_by_account_id",
].sort();

interface AdminAccountJson {
  id: string;
  username: string;
  email: string;
  ip: string | null;
  ips: { ip: string; used_at: string }[];
  role: { id: string; name: string } | null;
  approved: boolean;
  disabled: boolean;
  sensitized: boolean;
  silenced: boolean;
  suspended: boolean;
  account: { id: string; acct: string; limited: boolean; suspended: boolean; bot: boolean };
  password?: string;
}

describeOnEngines("administration of accounts", (engine) => {
  let kith: TestKith;
  let app: RegisteredApp;
  let owner: TestUser;
  let admin: TestUser;
  let moderator: TestUser;
  let plain: TestUser;
  let serial = 0;
  const fresh = (prefix = "target") => kith.createUser(`${prefix}${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    app = await registerApp(kith, { scopes: "read write" });
    owner = await kith.createUser("adm_owner", { role: "Owner" });
    admin = await kith.createUser("adm_admin", { role: "Admin" });
    moderator = await kith.createUser("adm_moderator", { role: "Moderator" });
    plain = await kith.createUser("adm_plain");
  });
  afterAll(() => kith.close());

  const get = (path: string, token: string) => kith.request("GET", path, { token });
  const post = (path: string, token: string, json: unknown = {}) => kith.request("POST", path, { token, json });
  const action = (id: string, type: string, token = admin.token) => post(`${BASE}/${id}/action`, token, { type, text: "because" });

  async function login(username: string, password: string): Promise<Response> {
    return kith.request("POST", "/oauth/token", {
      form: { grant_type: "password", client_id: app.client_id, client_secret: app.client_secret, username, password, scope: "read" },
    });
  }

  describe("reading", () => {
    it("shows one account as Mastodon's Admin::Account", async () => {
      const target = await fresh();
      await kith.services.sessions.issue({ accountId: target.account.id, scopes: ["read"], ip: "203.0.113.9" });
      const response = await get(`${BASE}/${target.account.id}`, moderator.token);
      expect(response.status).toBe(200);
      const json = (await response.json()) as AdminAccountJson;
      expect(Object.keys(json).sort()).toEqual(ADMIN_ACCOUNT_KEYS);
      expect(json).toMatchObject({
        id: target.account.id,
        username: target.account.username,
        domain: null,
        email: target.account.email,
        ip: "203.0.113.9",
        role: { name: "User" },
        confirmed: true,
        approved: true,
        disabled: false,
        silenced: false,
        suspended: false,
        sensitized: false,
        account: { id: target.account.id, acct: target.account.username },
      });
      expect(json.ips).toEqual([{ ip: "203.0.113.9", used_at: expect.any(String) }]);
      expect((await get(`${BASE}/us_nobody`, moderator.token)).status).toBe(404);
    });

    it("lists accounts with v1 filters and a Link header", async () => {
      const a = await fresh("listed");
      const b = await fresh("listed");
      const page = await get(`${BASE}?username=listed&limit=1`, admin.token);
      expect(page.status).toBe(200);
      const items = (await page.json()) as AdminAccountJson[];
      expect(items.map((item) => item.id)).toEqual([b.account.id]);
      const link = page.headers.get("link") ?? "";
      expect(link).toContain('rel="next"');
      const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? "";
      const rest = (await (await get(new URL(next).pathname + new URL(next).search, admin.token)).json()) as AdminAccountJson[];
      expect(rest.map((item) => item.id)).toEqual([a.account.id]);

      await action(a.account.id, "silence");
      const silenced = (await (await get(`${BASE}?silenced=true&local=true`, admin.token)).json()) as AdminAccountJson[];
      expect(silenced.map((item) => item.id)).toEqual([a.account.id]);
      const byEmail = (await (await get(`${BASE}?email=${encodeURIComponent(b.account.email)}`, admin.token)).json()) as AdminAccountJson[];
      expect(byEmail.map((item) => item.id)).toEqual([b.account.id]);
      const remote = (await (await get(`${BASE}?remote=true`, admin.token)).json()) as AdminAccountJson[];
      expect(remote).toEqual([]);
    });

    it("lists accounts with v2 filters: origin, status, permissions, role_ids", async () => {
      const target = await fresh("vtwo");
      await action(target.account.id, "suspend");
      const suspended = (await (
        await get("/api/v2/admin/accounts?origin=local&status=suspended", admin.token)
      ).json()) as AdminAccountJson[];
      expect(suspended.map((item) => item.id)).toContain(target.account.id);
      expect(suspended.every((item) => item.suspended)).toBe(true);

      const staff = (await (await get("/api/v2/admin/accounts?permissions=staff", admin.token)).json()) as AdminAccountJson[];
      expect(staff.map((item) => item.username).sort()).toEqual(["adm_admin", "adm_moderator", "adm_owner"]);

      const moderatorRole = (await (await get(`${BASE}/${moderator.account.id}`, admin.token)).json()) as AdminAccountJson;
      const byRole = (await (
        await get(`/api/v2/admin/accounts?role_ids[]=${moderatorRole.role?.id}`, admin.token)
      ).json()) as AdminAccountJson[];
      expect(byRole.map((item) => item.id)).toEqual([moderator.account.id]);
      expect((await get("/api/v2/admin/accounts?status=sleeping", admin.token)).status).toBe(422);
    });

    it("reads `_` in the username filter as itself, not as a wildcard, and filters by sensitized and active", async () => {
      const underscored = await kith.createUser("under_score");
      const lookalike = await kith.createUser("underxscore");
      const ids = async (path: string) => ((await (await get(path, admin.token)).json()) as AdminAccountJson[]).map((item) => item.id);
      expect(await ids(`${BASE}?username=under_s`)).toEqual([underscored.account.id]);
      expect(await ids(`${BASE}?active=true`)).toContain(lookalike.account.id);
      await action(lookalike.account.id, "sensitive");
      expect(await ids(`${BASE}?sensitized=true`)).toEqual([lookalike.account.id]);
    });

    it("answers 401 without a token and 403 to a plain user", async () => {
      expect((await kith.request("GET", BASE)).status).toBe(401);
      expect((await get(BASE, plain.token)).status).toBe(403);
      expect((await get("/api/v2/admin/accounts", plain.token)).status).toBe(403);
      expect((await get(`${BASE}/${plain.account.id}`, plain.token)).status).toBe(403);
    });
  });

  describe("state changes", () => {
    it("suspending stops the account's existing tokens at once and refuses login; unsuspending restores both", async () => {
      const target = await fresh();
      expect((await get(ME, target.token)).status).toBe(200);
      const suspend = await action(target.account.id, "suspend");
      expect(suspend.status).toBe(200);
      expect(await suspend.json()).toEqual({});
      expect((await get(ME, target.token)).status).toBe(401);
      expect((await login(target.account.username, target.password)).status).not.toBe(200);
      const json = (await (await get(`${BASE}/${target.account.id}`, admin.token)).json()) as AdminAccountJson;
      expect(json).toMatchObject({ suspended: true, account: { suspended: true } });

      const undone = await post(`${BASE}/${target.account.id}/unsuspend`, admin.token);
      expect(undone.status).toBe(200);
      expect(await undone.json()).toMatchObject({ suspended: false });
      expect((await get(ME, target.token)).status).toBe(200);
      expect((await login(target.account.username, target.password)).status).toBe(200);
    });

    it("disabling stops the account's tokens at once and refuses login; enabling restores both", async () => {
      const target = await fresh();
      expect((await action(target.account.id, "disable")).status).toBe(200);
      expect((await get(ME, target.token)).status).toBe(401);
      expect((await login(target.account.username, target.password)).status).not.toBe(200);
      const enabled = await post(`${BASE}/${target.account.id}/enable`, admin.token);
      expect(await enabled.json()).toMatchObject({ disabled: false });
      expect((await get(ME, target.token)).status).toBe(200);
    });

    it("silences and marks sensitive, and undoes each", async () => {
      const target = await fresh();
      await action(target.account.id, "silence");
      await action(target.account.id, "sensitive");
      await action(target.account.id, "none");
      const marked = (await (await get(`${BASE}/${target.account.id}`, admin.token)).json()) as AdminAccountJson;
      expect(marked).toMatchObject({ silenced: true, sensitized: true, account: { limited: true } });
      expect((await get(ME, target.token)).status).toBe(200);
      expect(await (await post(`${BASE}/${target.account.id}/unsilence`, admin.token)).json()).toMatchObject({
        silenced: false,
        sensitized: true,
      });
      expect(await (await post(`${BASE}/${target.account.id}/unsensitive`, admin.token)).json()).toMatchObject({ sensitized: false });
    });

    it("refuses unknown action types (422), actions on oneself (409), on unknown accounts (404), and by moderators (403)", async () => {
      const target = await fresh();
      expect((await action(target.account.id, "obliterate")).status).toBe(422);
      expect((await post(`${BASE}/${target.account.id}/action`, admin.token, {})).status).toBe(422);
      expect((await action(admin.account.id, "suspend")).status).toBe(409);
      expect((await action("us_nobody", "suspend")).status).toBe(404);
      expect((await action(target.account.id, "suspend", moderator.token)).status).toBe(403);
      expect((await action(target.account.id, "suspend", plain.token)).status).toBe(403);
      expect((await kith.request("POST", `${BASE}/${target.account.id}/action`, { json: { type: "none" } })).status).toBe(401);
    });

    it("refuses acting on an account that holds permissions the caller lacks (403)", async () => {
      const response = await action(owner.account.id, "suspend");
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "admin_account.outranked" });
      expect((await post(`${BASE}/${owner.account.id}/password`, admin.token, { password: "hijacked-password" })).status).toBe(403);
    });

    it("approves and rejects pending accounts only (409 otherwise)", async () => {
      const pending = await kith.services.accounts.createLocalAccount({
        username: `pending${++serial}`,
        email: `p${serial}@kith.test`,
        approved: false,
      });
      expect((await login(pending.account.username, pending.password)).status).not.toBe(200);
      const listed = (await (await get(`${BASE}?pending=true`, admin.token)).json()) as AdminAccountJson[];
      expect(listed.map((item) => item.id)).toContain(pending.account.id);

      const approved = await post(`${BASE}/${pending.account.id}/approve`, admin.token);
      expect(approved.status).toBe(200);
      expect(await approved.json()).toMatchObject({ approved: true });
      expect((await login(pending.account.username, pending.password)).status).toBe(200);
      expect((await post(`${BASE}/${pending.account.id}/approve`, admin.token)).status).toBe(409);
      expect((await post(`${BASE}/${pending.account.id}/reject`, admin.token)).status).toBe(409);

      const other = await kith.services.accounts.createLocalAccount({
        username: `pending${++serial}`,
        email: `p${serial}@kith.test`,
        approved: false,
      });
      const rejected = await post(`${BASE}/${other.account.id}/reject`, admin.token);
      expect(rejected.status).toBe(200);
      expect(await rejected.json()).toMatchObject({ id: other.account.id, approved: false });
      expect((await get(`${BASE}/${other.account.id}`, admin.token)).status).toBe(404);
    });

    it("deletes only suspended accounts (409 otherwise)", async () => {
      const target = await fresh();
      const early = await kith.request("DELETE", `${BASE}/${target.account.id}`, { token: admin.token });
      expect(early.status).toBe(409);
      await action(target.account.id, "suspend");
      const deleted = await kith.request("DELETE", `${BASE}/${target.account.id}`, { token: admin.token });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toMatchObject({ id: target.account.id, suspended: true });
      expect((await get(`${BASE}/${target.account.id}`, admin.token)).status).toBe(404);
      expect((await kith.request("DELETE", `${BASE}/${target.account.id}`, { token: admin.token })).status).toBe(404);
      expect((await kith.request("DELETE", `${BASE}/${plain.account.id}`, { token: moderator.token })).status).toBe(403);
    });
  });

  describe("creation, roles, passwords", () => {
    it("creates an account with a generated password that signs in", async () => {
      const response = await post(BASE, admin.token, { username: "made_by_admin", email: "Made@Kith.test", role: "Moderator" });
      expect(response.status).toBe(201);
      const json = (await response.json()) as AdminAccountJson;
      expect(json).toMatchObject({ username: "made_by_admin", email: "made@kith.test", role: { name: "Moderator" }, approved: true });
      expect(json.password).toEqual(expect.any(String));
      expect((await login("made_by_admin", json.password as string)).status).toBe(200);

      const given = await post(BASE, admin.token, { username: "given_pw", email: "given@kith.test", password: "correct horse battery" });
      expect(given.status).toBe(201);
      expect((await given.json()).password).toBeUndefined();
      expect((await login("given_pw", "correct horse battery")).status).toBe(200);
    });

    it("refuses bad input (400/422), taken names (422), unknown roles (404) and roles beyond the caller's (403)", async () => {
      expect((await post(BASE, admin.token, { email: "x@kith.test" })).status).toBe(400);
      expect((await post(BASE, admin.token, { username: "bad name", email: "x@kith.test" })).status).toBe(422);
      expect((await post(BASE, admin.token, { username: "okname", email: "not-an-email" })).status).toBe(422);
      expect((await post(BASE, admin.token, { username: "okname", email: "ok@kith.test", password: "short" })).status).toBe(422);
      expect((await post(BASE, admin.token, { username: "adm_plain", email: "dup@kith.test" })).status).toBe(422);
      expect((await post(BASE, admin.token, { username: "okname", email: "ok@kith.test", role: "Wizard" })).status).toBe(404);
      const escalation = await post(BASE, admin.token, { username: "okname", email: "ok@kith.test", role: "Owner" });
      expect(escalation.status).toBe(403);
      expect(await escalation.json()).toMatchObject({ code: "role.escalation" });
      expect((await post(BASE, moderator.token, { username: "okname", email: "ok@kith.test" })).status).toBe(403);
    });

    it("sets an account's role by name or id, within the caller's permissions", async () => {
      const target = await fresh();
      const byName = await kith.request("PUT", `${BASE}/${target.account.id}/role`, { token: admin.token, json: { role: "Moderator" } });
      expect(byName.status).toBe(200);
      const json = (await byName.json()) as AdminAccountJson;
      expect(json.role?.name).toBe("Moderator");
      // The new role counts on the target's next request.
      expect((await get(BASE, target.token)).status).toBe(200);

      const user = (await (await get(`${BASE}/${plain.account.id}`, admin.token)).json()) as AdminAccountJson;
      const byId = await kith.request("PUT", `${BASE}/${target.account.id}/role`, { token: admin.token, json: { roleId: user.role?.id } });
      expect(((await byId.json()) as AdminAccountJson).role?.name).toBe("User");
      expect((await get(BASE, target.token)).status).toBe(403);

      expect((await kith.request("PUT", `${BASE}/${target.account.id}/role`, { token: admin.token, json: { role: "Owner" } })).status).toBe(
        403,
      );
      expect((await kith.request("PUT", `${BASE}/${target.account.id}/role`, { token: admin.token, json: {} })).status).toBe(400);
      expect(
        (await kith.request("PUT", `${BASE}/${target.account.id}/role`, { token: admin.token, json: { role: "Wizard" } })).status,
      ).toBe(404);
    });

    it("refuses to demote the server's last Owner (409)", async () => {
      const response = await kith.request("PUT", `${BASE}/${owner.account.id}/role`, { token: owner.token, json: { role: "Admin" } });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "role.last_owner" });
    });

    it("sets a password, ending every session of the account", async () => {
      const target = await fresh();
      const set = await post(`${BASE}/${target.account.id}/password`, admin.token, { password: "a brand new password" });
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({ sessions_revoked: 1 });
      expect((await get(ME, target.token)).status).toBe(401);
      expect((await login(target.account.username, target.password)).status).not.toBe(200);
      expect((await login(target.account.username, "a brand new password")).status).toBe(200);

      const generated = await post(`${BASE}/${target.account.id}/password`, admin.token);
      const body = await generated.json();
      expect(body).toEqual({ password: expect.any(String), sessions_revoked: 1 });
      expect((await login(target.account.username, body.password)).status).toBe(200);

      expect((await post(`${BASE}/${target.account.id}/password`, admin.token, { password: "short" })).status).toBe(422);
      expect((await post(`${BASE}/${target.account.id}/password`, moderator.token, { password: "a brand new password" })).status).toBe(403);
    });
  });

  describe("impersonation", () => {
    it("issues a token for a bot, recorded with the administrator's name", async () => {
      const bot = await kith.services.accounts.createLocalAccount({
        username: "helpful_bot",
        email: "bot@kith.test",
        actorType: "Service",
        confirmed: true,
      });
      const response = await post(`${BASE}/${bot.account.id}/impersonate`, admin.token);
      expect(response.status).toBe(200);
      const token = await response.json();
      expect(token).toMatchObject({ access_token: expect.any(String), token_type: "Bearer", scope: "read write follow push" });
      const me = await get(ME, token.access_token);
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ id: bot.account.id, bot: true });
      const sessions = await kith.storage.db.selectFrom("sessions").selectAll().where("account_id", "=", bot.account.id).execute();
      expect(sessions.map((session) => session.user_agent)).toEqual([`impersonated by ${admin.account.id}`]);

      // The bot's token cannot administer, even though the administrator could.
      expect((await get(BASE, token.access_token)).status).toBe(403);
      // A suspended bot's impersonation token stops too.
      await action(bot.account.id, "suspend");
      expect((await get(ME, token.access_token)).status).toBe(401);
      expect((await post(`${BASE}/${bot.account.id}/impersonate`, admin.token)).status).toBe(409);
    });

    it("refuses accounts that are not bots (409), and callers without Users.Manage (403)", async () => {
      const person = await fresh();
      const response = await post(`${BASE}/${person.account.id}/impersonate`, admin.token);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ code: "admin_account.not_bot" });
      expect((await post(`${BASE}/${person.account.id}/impersonate`, moderator.token)).status).toBe(403);
      expect((await post(`${BASE}/${person.account.id}/impersonate`, plain.token)).status).toBe(403);
    });
  });
});
