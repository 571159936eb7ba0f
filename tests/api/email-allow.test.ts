/**
 * The email-domain allowlist: the spec's three endpoints with their
 * permissions, and its effect on sign-up when the setting is on.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccessType } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { appToken, signUp, signupFields } from "../support/registration.js";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";

const LIST = "/api/v1/admin/email-allow";
const MANAGE: AccessType[] = ["Add", "Modify", "Delete"];

describeOnEngines("email-domain allowlist", (engine) => {
  let kith: TestKith;
  let serial = 0;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  async function userWith(access: AccessType[] | null): Promise<string> {
    const user = await kith.createUser(`staff${++serial}`);
    if (access) await giveGrants(kith, user.account.id, [{ resource: "AdminSettings", access, scope: "global" }]);
    return user.token;
  }

  describe("permissions", () => {
    it("answers 401 without a token on every endpoint", async () => {
      expect((await kith.request("GET", LIST)).status).toBe(401);
      expect((await kith.request("POST", LIST, { json: { domain: "example.org" } })).status).toBe(401);
      expect((await kith.request("DELETE", `${LIST}/example.org`)).status).toBe(401);
    });

    it("answers 403 to a user without AdminSettings", async () => {
      const token = await userWith(null);
      expect((await kith.request("GET", LIST, { token })).status).toBe(403);
      expect((await kith.request("POST", LIST, { token, json: { domain: "example.org" } })).status).toBe(403);
      expect((await kith.request("DELETE", `${LIST}/example.org`, { token })).status).toBe(403);
    });

    it("needs AdminSettings.Manage even to list (ALL of Manage, ANY of Read/Manage): Read alone is 403", async () => {
      const token = await userWith(["Read"]);
      expect((await kith.request("GET", LIST, { token })).status).toBe(403);
      expect((await kith.request("POST", LIST, { token, json: { domain: "example.org" } })).status).toBe(403);
      const manager = await userWith(MANAGE);
      expect((await kith.request("GET", LIST, { token: manager })).status).toBe(200);
    });

    it("needs an admin scope on the token", async () => {
      const user = await kith.createUser("scoped", { scopes: ["read", "write"] });
      await giveGrants(kith, user.account.id, [{ resource: "AdminSettings", access: MANAGE, scope: "global" }]);
      expect((await kith.request("GET", LIST, { token: user.token })).status).toBe(403);
    });
  });

  describe("endpoints", () => {
    let token: string;
    beforeEach(async () => {
      token = await userWith(MANAGE);
    });

    it("adds a domain, normalised; a second add of it is 409", async () => {
      const added = await kith.request("POST", LIST, { token, json: { domain: " @Example.ORG " } });
      expect(added.status).toBe(200);
      expect(await added.json()).toEqual({ domain: "example.org", createdAt: kith.clock.now().toISOString() });
      const again = await kith.request("POST", LIST, { token, json: { domain: "example.org" } });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: "email_allow.exists" });
    });

    it("takes a form body too, and stores internationalised domains as punycode", async () => {
      const added = await kith.request("POST", LIST, { token, form: { domain: "bücher.example" } });
      expect(added.status).toBe(200);
      expect(await added.json()).toMatchObject({ domain: "xn--bcher-kva.example" });
    });

    it.each(["not a domain", "localhost", "[127.0.0.1]", "10.0.0.1", "a..b.example", "example.org."])(
      "refuses %s with 422",
      async (domain) => {
        const response = await kith.request("POST", LIST, { token, json: { domain } });
        expect(response.status).toBe(422);
        expect(await response.json()).toMatchObject({ code: "email_allow.invalid_domain" });
      },
    );

    it("refuses a body without a domain", async () => {
      const response = await kith.request("POST", LIST, { token, json: {} });
      expect([400, 422]).toContain(response.status);
    });

    it("lists in domain order, paginated with a cursor in the Link header", async () => {
      for (const domain of ["c.example", "a.example", "b.example"]) {
        expect((await kith.request("POST", LIST, { token, json: { domain } })).status).toBe(200);
      }
      const first = await kith.request("GET", `${LIST}?limit=2`, { token });
      expect(((await first.json()) as Array<{ domain: string }>).map((entry) => entry.domain)).toEqual(["a.example", "b.example"]);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
      expect(next).toBeDefined();
      const url = new URL(next as string);
      const second = await kith.request("GET", `${url.pathname}${url.search}`, { token });
      expect(((await second.json()) as Array<{ domain: string }>).map((entry) => entry.domain)).toEqual(["c.example"]);
      expect(second.headers.get("link")).toBeNull();
    });

    it("removes a domain; removing an absent one is 404", async () => {
      await kith.request("POST", LIST, { token, json: { domain: "example.org" } });
      const removed = await kith.request("DELETE", `${LIST}/Example.org`, { token });
      expect(removed.status).toBe(204);
      expect(await (await kith.request("GET", LIST, { token })).json()).toEqual([]);
      const again = await kith.request("DELETE", `${LIST}/example.org`, { token });
      expect(again.status).toBe(404);
      expect(await again.json()).toMatchObject({ code: "email_allow.not_found" });
    });
  });

  describe("effect on sign-up", () => {
    let app: string;
    let ip = 0;
    const register = (username: string, email: string) =>
      signUp(kith, app, signupFields(username, { email }), { clientIp: `203.0.113.${++ip}` });

    beforeEach(async () => {
      ({ token: app } = await appToken(kith));
      await kith.services.emailAllow.add("example.org");
    });

    it("with the setting off, any domain may register", async () => {
      expect((await register("alice", "alice@elsewhere.test")).status).toBe(200);
    });

    it("with the setting on, only allowed domains and their subdomains may register", async () => {
      await kith.services.settings.update({ emailAllowlistEnabled: true });
      const refused = await register("alice", "alice@elsewhere.test");
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ details: { email: [{ error: "ERR_BLOCKED" }] } });
      // Labels are compared whole: example.org does not allow badexample.org.
      expect((await register("mallory", "mallory@badexample.org")).status).toBe(422);
      expect((await register("bob", "bob@Example.ORG")).status).toBe(200);
      expect((await register("carol", "carol@mail.example.org")).status).toBe(200);
      await kith.services.emailAllow.remove("example.org");
      expect((await register("dave", "dave@example.org")).status).toBe(422);
    });
  });
});
