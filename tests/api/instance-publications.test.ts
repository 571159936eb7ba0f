import { createHash } from "node:crypto";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { makePng } from "../support/media-files.js";
import { remoteAccount } from "./timelines-fixtures.js";

// Mastodon's `/api/v1/instance/*` beyond the instance document, the profile images' removal and identity proofs.
describeOnEngines("instance publications and profile extras", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  let alice: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("ip_admin", { role: "Owner" });
    alice = await kith.createUser("ip_alice");
  });
  afterAll(() => kith.close());

  const get = async (path: string, token?: string): Promise<{ status: number; body: unknown }> => {
    const response = await kith.request("GET", path, token ? { token } : {});
    return { status: response.status, body: response.status === 200 ? await response.json() : null };
  };
  const settings = (changes: Record<string, unknown>) => kith.services.settings.update(changes);

  it("lists languages with their English names, and no translation languages without a translation service", async () => {
    const { status, body } = await get("/api/v1/instance/languages");
    expect(status).toBe(200);
    const languages = body as { code: string; name: string }[];
    expect(languages).toContainEqual({ code: "en", name: "English" });
    expect(languages).toContainEqual({ code: "de", name: "German" });
    expect(languages.length).toBeGreaterThan(180);
    expect(new Set(languages.map((language) => language.code)).size).toBe(languages.length);
    expect(await get("/api/v1/instance/translation_languages")).toEqual({ status: 200, body: {} });
  });

  it("gives the extended description as HTML, with its time once set, and the rules", async () => {
    expect(await get("/api/v1/instance/extended_description")).toEqual({ status: 200, body: { updated_at: null, content: "" } });
    await settings({
      extendedDescription: "Welcome <friends>.\nBe kind.\n\nSecond part.",
      rules: [{ id: "1", text: "No spam", hint: "Really" }],
    });
    const { body } = await get("/api/v1/instance/extended_description");
    expect(body).toEqual({
      updated_at: kith.clock.now().toISOString(),
      content: "<p>Welcome &lt;friends&gt;.<br />Be kind.</p><p>Second part.</p>",
    });
    expect(await get("/api/v1/instance/rules")).toEqual({ status: 200, body: [{ id: "1", text: "No spam", hint: "Really" }] });
  });

  it("publishes domain blocks only as the setting says, with comments only as their own setting says", async () => {
    const now = kith.clock.now().toISOString();
    const block = (id: string, domain: string, severity: string, extra: { obfuscate?: boolean; reject_media?: boolean } = {}) =>
      kith.storage.db
        .insertInto("domain_blocks")
        .values({
          id,
          domain,
          severity,
          public_comment: "spam source",
          private_comment: "secret",
          created_at: now,
          updated_at: now,
          ...extra,
        })
        .execute();
    await block("db_1", "suspended.example", "SUSPEND");
    await block("db_2", "limited.example", "LIMIT", { obfuscate: true });
    await block("db_3", "noop.example", "NOOP", { reject_media: true });

    // Off by default, as in Mastodon: no list for anyone.
    expect((await get("/api/v1/instance/domain_blocks")).status).toBe(404);
    expect((await get("/api/v1/instance/domain_blocks", alice.token)).status).toBe(404);

    await settings({ showDomainBlocks: "users" });
    expect((await get("/api/v1/instance/domain_blocks")).status).toBe(404);
    const forUsers = await get("/api/v1/instance/domain_blocks", alice.token);
    expect(forUsers.body).toEqual([
      { domain: "suspended.example", digest: createHash("sha256").update("suspended.example").digest("hex"), severity: "suspend" },
      { domain: "limi***.****ple", digest: createHash("sha256").update("limited.example").digest("hex"), severity: "silence" },
    ]);

    await settings({ showDomainBlocks: "all", showDomainBlocksRationale: "users" });
    const forGuests = (await get("/api/v1/instance/domain_blocks")).body as { comment?: string }[];
    expect(forGuests.map((entry) => entry.comment)).toEqual([undefined, undefined]);
    const withComments = (await get("/api/v1/instance/domain_blocks", alice.token)).body as { comment?: string }[];
    expect(withComments.map((entry) => entry.comment)).toEqual(["spam source", "spam source"]);
    await settings({ showDomainBlocks: "disabled", showDomainBlocksRationale: "disabled" });
    await kith.storage.db.deleteFrom("domain_blocks").execute();
  });

  it("peers leave suspended domains out; peers and activity are not published in allowlist mode", async () => {
    await remoteAccount(kith, "peer", "peer.example");
    await remoteAccount(kith, "gone", "sub.gone.example");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("domain_blocks")
      .values({ id: "db_9", domain: "gone.example", severity: "SUSPEND", created_at: now, updated_at: now })
      .execute();
    const peers = (await get("/api/v1/instance/peers")).body as string[];
    expect(peers).toContain("peer.example");
    expect(peers).not.toContain("sub.gone.example");
    await settings({ federationAllowlistEnabled: true });
    expect((await get("/api/v1/instance/peers")).status).toBe(404);
    expect((await get("/api/v1/instance/activity")).status).toBe(404);
    await settings({ federationAllowlistEnabled: false });
    expect((await get("/api/v1/instance/activity")).status).toBe(200);
    await kith.storage.db.deleteFrom("domain_blocks").execute();
  });

  it("takes the avatar and the header away, answers the CredentialAccount and tells other servers", async () => {
    const fay = await kith.createUser("ip_fay");
    const data = new FormData();
    data.set("avatar", new File([await makePng(120, 120)], "me.png", { type: "image/png" }));
    data.set("header", new File([await makePng(300, 100)], "banner.png", { type: "image/png" }));
    expect((await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: fay.token, body: data })).status).toBe(200);
    const updated: string[] = [];
    const off = kith.services.events.on("account.updated", (event) => {
      updated.push(event.accountId);
    });
    for (const image of ["avatar", "header"] as const) {
      const response = await kith.request("DELETE", `/api/v1/profile/${image}`, { token: fay.token });
      expect(response.status).toBe(200);
      const account = (await response.json()) as { id: string; avatar: string; header: string; source: unknown };
      expect(account.id).toBe(fay.account.id);
      expect(account.source).toBeDefined();
      expect(account[image]).toContain("missing.png");
    }
    const account = (await (await kith.request("GET", `/api/v1/accounts/${fay.account.id}`)).json()) as { avatar: string; header: string };
    expect([account.avatar, account.header].every((url) => url.includes("missing.png"))).toBe(true);
    // Taking it again is no error, and no news.
    expect((await kith.request("DELETE", "/api/v1/profile/avatar", { token: fay.token })).status).toBe(200);
    off();
    expect(updated).toEqual([fay.account.id, fay.account.id]);
  });

  it("refuses guests and tokens without write:accounts the image removal, and guests identity proofs", async () => {
    expect((await kith.request("DELETE", "/api/v1/profile/avatar")).status).toBe(401);
    expect((await kith.request("DELETE", "/api/v1/profile/header")).status).toBe(401);
    const reader = await kith.createUser("ip_reader", { scopes: ["read"] });
    expect((await kith.request("DELETE", "/api/v1/profile/avatar", { token: reader.token })).status).toBe(403);
    expect((await kith.request("GET", `/api/v1/accounts/${alice.account.id}/identity_proofs`)).status).toBe(401);
  });

  it("answers identity proofs with an empty list, and 404 for an unknown account", async () => {
    expect(await get(`/api/v1/accounts/${admin.account.id}/identity_proofs`, alice.token)).toEqual({ status: 200, body: [] });
    expect((await get("/api/v1/accounts/us_00000000000000000000000000/identity_proofs", alice.token)).status).toBe(404);
  });
});
