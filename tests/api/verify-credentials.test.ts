import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { CredentialAccountJson } from "../../packages/core/src/mastodon/entities/account.js";
import { missingKeys } from "../support/entity-keys.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("GET /api/v1/accounts/verify_credentials", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("returns every key of Mastodon's CredentialAccount", async () => {
    const alice = await kith.createUser("alice");
    const response = await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: alice.token });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(missingKeys(CredentialAccountJson, body)).toEqual([]);
    expect(CredentialAccountJson.safeParse(body).error?.issues).toBeUndefined();
  });

  it("describes the signed-in user", async () => {
    const bob = await kith.createUser("Bob");
    const body = await (await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: bob.token })).json();
    expect(body).toMatchObject({
      id: bob.account.id,
      username: "Bob",
      acct: "Bob",
      url: "https://kith.test/@Bob",
      uri: "https://kith.test/users/Bob",
      avatar: "https://kith.test/avatars/original/missing.png",
      bot: false,
      locked: false,
    });
    expect(body.created_at).toBe(bob.account.createdAt);
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("carries a plain user's role without the administrator bit", async () => {
    const carol = await kith.createUser("carol");
    const body = await (await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: carol.token })).json();
    expect(body.role).toMatchObject({ name: "User", permissions: "0", highlighted: false });
  });

  it("carries an administrator's role with the administrator bit", async () => {
    const dave = await kith.createUser("dave", { role: "Admin" });
    const body = await (await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: dave.token })).json();
    expect(body.role).toMatchObject({ name: "Admin", permissions: "1", highlighted: true });
  });

  it("serves the avatar the account points at", async () => {
    const erin = await kith.createUser("erin");
    const body = await (await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: erin.token })).json();
    const avatar = await kith.request("GET", new URL(body.avatar).pathname);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get("content-type")).toBe("image/png");
  });
});
