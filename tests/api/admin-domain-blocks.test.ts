/**
 * Administrators' domain blocks and allowlist at Mastodon's paths and
 * shapes, with Federation.Read / Federation.Manage, and the policy the
 * federation code asks for a host.
 */
import type { AccessType } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";

const BLOCKS = "/api/v1/admin/domain_blocks";
const ALLOWS = "/api/v1/admin/domain_allows";
const MANAGE: AccessType[] = ["Add", "Modify", "Delete"];

describeOnEngines("admin domain blocks and allows", (engine) => {
  let kith: TestKith;
  let serial = 0;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  async function userWith(access: AccessType[] | null): Promise<string> {
    const user = await kith.createUser(`staff${++serial}`);
    if (access) await giveGrants(kith, user.account.id, [{ resource: "Federation", access, scope: "global" }]);
    return user.token;
  }

  describe("permissions", () => {
    it("answers 401 without a token and 403 without Federation", async () => {
      expect((await kith.request("GET", BLOCKS)).status).toBe(401);
      expect((await kith.request("POST", ALLOWS, { json: { domain: "example.org" } })).status).toBe(401);
      const token = await userWith(null);
      expect((await kith.request("GET", BLOCKS, { token })).status).toBe(403);
      expect((await kith.request("GET", ALLOWS, { token })).status).toBe(403);
    });

    it("lets Federation.Read list but not change", async () => {
      const token = await userWith(["Read"]);
      expect((await kith.request("GET", BLOCKS, { token })).status).toBe(200);
      expect((await kith.request("GET", ALLOWS, { token })).status).toBe(200);
      expect((await kith.request("POST", BLOCKS, { token, json: { domain: "example.org" } })).status).toBe(403);
      expect((await kith.request("POST", ALLOWS, { token, json: { domain: "example.org" } })).status).toBe(403);
    });
  });

  describe("domain blocks", () => {
    let token: string;
    beforeEach(async () => {
      token = await userWith(MANAGE);
    });

    it("creates, reads, lists, updates and deletes a block in Mastodon's shape", async () => {
      const created = await kith.request("POST", BLOCKS, {
        token,
        form: { domain: "Spam.Example.", severity: "suspend", reject_media: "true", public_comment: "spam" },
      });
      expect(created.status).toBe(200);
      const block = (await created.json()) as Record<string, unknown>;
      expect(block).toMatchObject({
        domain: "spam.example",
        severity: "suspend",
        reject_media: true,
        reject_reports: false,
        private_comment: null,
        public_comment: "spam",
        obfuscate: false,
      });
      expect(block.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(block.created_at).toMatch(/\.\d{3}Z$/);
      const id = String(block.id);

      expect(await (await kith.request("GET", `${BLOCKS}/${id}`, { token })).json()).toEqual(block);
      const list = (await (await kith.request("GET", BLOCKS, { token })).json()) as { id: string }[];
      expect(list.map((entry) => entry.id)).toEqual([id]);

      const updated = await kith.request("PUT", `${BLOCKS}/${id}`, { token, json: { severity: "silence", private_comment: "watch" } });
      expect(updated.status).toBe(200);
      expect(await updated.json()).toMatchObject({ severity: "silence", private_comment: "watch", reject_media: true });

      expect((await kith.request("DELETE", `${BLOCKS}/${id}`, { token })).status).toBe(200);
      expect((await kith.request("GET", `${BLOCKS}/${id}`, { token })).status).toBe(404);
      expect((await kith.request("DELETE", `${BLOCKS}/${id}`, { token })).status).toBe(404);
      expect((await kith.request("PUT", `${BLOCKS}/${id}`, { token, json: { severity: "noop" } })).status).toBe(404);
    });

    it("refuses bad input: no domain (400), a bad domain, an unknown severity, a duplicate (422)", async () => {
      expect((await kith.request("POST", BLOCKS, { token, json: {} })).status).toBe(400);
      expect((await kith.request("POST", BLOCKS, { token, json: { domain: "not a domain" } })).status).toBe(422);
      expect((await kith.request("POST", BLOCKS, { token, json: { domain: "https://x.example/path" } })).status).toBe(422);
      expect((await kith.request("POST", BLOCKS, { token, json: { domain: "x.example", severity: "obliterate" } })).status).toBe(422);
      expect((await kith.request("POST", BLOCKS, { token, json: { domain: "x.example" } })).status).toBe(200);
      const duplicate = await kith.request("POST", BLOCKS, { token, json: { domain: "X.example" } });
      expect(duplicate.status).toBe(422);
    });

    it("defaults to silence (LIMIT) and maps severities to the policy", async () => {
      const limit = (await (await kith.request("POST", BLOCKS, { token, json: { domain: "quiet.example" } })).json()) as {
        severity: string;
      };
      expect(limit.severity).toBe("silence");
      await kith.request("POST", BLOCKS, { token, json: { domain: "evil.example", severity: "suspend" } });
      await kith.request("POST", BLOCKS, { token, json: { domain: "ok.evil.example", severity: "noop", reject_reports: true } });

      const quiet = await kith.services.domainPolicy.policyFor("sub.quiet.example:8443");
      expect(quiet).toMatchObject({ domain: "sub.quiet.example", blocked: false, severity: "LIMIT", limited: true });
      expect(await kith.services.domainPolicy.policyFor("EVIL.example")).toMatchObject({
        blocked: true,
        severity: "SUSPEND",
        rejectMedia: true,
        reason: "suspended",
      });
      // The most specific block applies.
      expect(await kith.services.domainPolicy.policyFor("ok.evil.example")).toMatchObject({
        blocked: false,
        severity: "NOOP",
        rejectReports: true,
      });
      expect(await kith.services.domainPolicy.policyFor("friendly.example")).toMatchObject({ blocked: false, severity: null });
    });

    it("pages the list with Link headers", async () => {
      for (const name of ["a", "b", "c"]) await kith.request("POST", BLOCKS, { token, json: { domain: `${name}.example` } });
      const first = await kith.request("GET", `${BLOCKS}?limit=2`, { token });
      expect(((await first.json()) as { domain: string }[]).map((entry) => entry.domain)).toEqual(["c.example", "b.example"]);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
      expect(next).toBeTruthy();
      const second = await kith.request("GET", new URL(String(next)).pathname + new URL(String(next)).search, { token });
      expect(((await second.json()) as { domain: string }[]).map((entry) => entry.domain)).toEqual(["a.example"]);
    });
  });

  describe("domain allows and allowlist mode", () => {
    let token: string;
    beforeEach(async () => {
      token = await userWith(MANAGE);
    });

    it("creates, reads, lists and deletes allows; a second POST returns the same entry", async () => {
      const created = await kith.request("POST", ALLOWS, { token, json: { domain: "Friends.Example" } });
      expect(created.status).toBe(200);
      const allow = (await created.json()) as { id: string; domain: string; created_at: string };
      expect(allow.domain).toBe("friends.example");
      const again = (await (await kith.request("POST", ALLOWS, { token, json: { domain: "friends.example" } })).json()) as { id: string };
      expect(again.id).toBe(allow.id);
      expect(await (await kith.request("GET", `${ALLOWS}/${allow.id}`, { token })).json()).toEqual(allow);
      expect(((await (await kith.request("GET", ALLOWS, { token })).json()) as unknown[]).length).toBe(1);
      expect((await kith.request("DELETE", `${ALLOWS}/${allow.id}`, { token })).status).toBe(200);
      expect((await kith.request("GET", `${ALLOWS}/${allow.id}`, { token })).status).toBe(404);
      expect((await kith.request("DELETE", `${ALLOWS}/${allow.id}`, { token })).status).toBe(404);
      expect((await kith.request("POST", ALLOWS, { token, json: { domain: "bad domain" } })).status).toBe(422);
    });

    it("blocks every domain not on the allowlist once allowlist mode is on", async () => {
      await kith.request("POST", ALLOWS, { token, json: { domain: "friends.example" } });
      expect((await kith.services.domainPolicy.policyFor("stranger.example")).blocked).toBe(false);
      await kith.services.settings.update({ federationAllowlistEnabled: true });
      kith.services.domainPolicy.invalidate();
      expect(await kith.services.domainPolicy.policyFor("stranger.example")).toMatchObject({ blocked: true, reason: "not_allowlisted" });
      expect(await kith.services.domainPolicy.policyFor("social.friends.example")).toMatchObject({ blocked: false, allowlisted: true });
      // This server's own host always federates with itself.
      expect((await kith.services.domainPolicy.policyFor("kith.test")).blocked).toBe(false);
    });

    it("lets a setting change reach cached policies after a short while", async () => {
      expect((await kith.services.domainPolicy.policyFor("stranger.example")).blocked).toBe(false);
      await kith.services.settings.update({ federationAllowlistEnabled: true });
      kith.clock.advance(60_000);
      expect((await kith.services.domainPolicy.policyFor("stranger.example")).blocked).toBe(true);
    });
  });

  it("answers the policy of a host both blocked and allowed", async () => {
    await kith.services.domainPolicy.createBlock({ domain: "evil.example", severity: "SUSPEND", rejectReports: true });
    await kith.services.domainPolicy.createAllow("evil.example");
    expect(await kith.services.domainPolicy.policyFor("a.evil.example")).toMatchObject({
      blocked: true,
      severity: "SUSPEND",
      rejectReports: true,
      allowlisted: true,
    });
    expect(await kith.services.domainPolicy.policyFor("fine.example")).toMatchObject({ blocked: false, allowlisted: false });
  });
});
