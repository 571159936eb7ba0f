/**
 * A user's own domain blocks, as the spec describes them
 * (`/api/v1/user-domain-block`) and as Mastodon serves them
 * (`/api/v1/domain_blocks`), on both engines: the block hides the domain's
 * public posts and its notifications, removes the user's followers there and
 * refuses new follows of its accounts, while existing follows stay.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, remoteAccount, remoteFollows } from "./relationships-support.js";
import { favourite, idsOf, post } from "./timelines-fixtures.js";
import { describeOnEngines } from "../support/engines.js";

const DOMAIN = "blocked.example";

describeOnEngines("user domain blocks", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bystander: TestUser;
  let fan: string;
  let friend: string;
  let stranger: string;
  let remoteStatus: string;
  let alicePost: string;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("udb_alice");
    bystander = await kith.createUser("udb_bystander");
    fan = await remoteAccount(kith, "fan", DOMAIN);
    friend = await remoteAccount(kith, "friend", DOMAIN);
    stranger = await remoteAccount(kith, "stranger", DOMAIN);
    // The fan follows alice; alice follows the friend (written as federation would have: accepted).
    await remoteFollows(kith, fan, alice.account.id);
    await remoteFollows(kith, alice.account.id, friend);
    remoteStatus = await post(kith, friend, { local: false, tags: ["udbtag"] });
    alicePost = await post(kith, alice.account.id);
  });
  afterAll(() => kith.close());

  const relationship = async (id: string): Promise<Record<string, unknown>> => {
    const [one] = await json<Record<string, unknown>[]>(
      await kith.request("GET", `/api/v1/accounts/relationships?id[]=${id}`, { token: alice.token }),
    );
    return one ?? {};
  };
  const counts = async (id: string) =>
    json<{ followers_count: number; following_count: number }>(await kith.request("GET", `/api/v1/accounts/${id}`));

  it("blocks a domain: its public posts and notifications are hidden, its followers removed, existing follows kept", async () => {
    await favourite(kith, fan, alicePost);
    const before = await json<{ account: { id: string } }[]>(await kith.request("GET", "/api/v1/notifications", { token: alice.token }));
    expect(before.map((n) => n.account.id)).toContain(fan);
    expect(await idsOf(await kith.request("GET", "/api/v1/timelines/public", { token: alice.token }))).toContain(remoteStatus);
    expect(await counts(alice.account.id)).toMatchObject({ followers_count: 1, following_count: 1 });

    const blocked = await kith.request("POST", `/api/v1/user-domain-block/${DOMAIN.toUpperCase()}`, { token: alice.token });
    expect(blocked.status).toBe(200);
    expect(await json(blocked)).toEqual({ domain: DOMAIN });
    expect(await json(await kith.request("GET", "/api/v1/user-domain-block", { token: alice.token }))).toEqual([DOMAIN]);

    // Its public posts: gone from the public, remote and hashtag timelines, for alice only.
    for (const path of ["/api/v1/timelines/public", "/api/v1/timelines/public?remote=true", "/api/v1/timelines/tag/udbtag"]) {
      expect(await idsOf(await kith.request("GET", path, { token: alice.token }))).not.toContain(remoteStatus);
      expect(await idsOf(await kith.request("GET", path, { token: bystander.token }))).toContain(remoteStatus);
    }
    // Its notifications: the earlier one is hidden and new ones do not show.
    await favourite(kith, stranger, alicePost);
    const after = await json<{ account: { id: string } }[]>(await kith.request("GET", "/api/v1/notifications", { token: alice.token }));
    expect(after.map((n) => n.account.id)).not.toContain(fan);
    expect(after.map((n) => n.account.id)).not.toContain(stranger);
    expect(await json(await kith.request("GET", "/api/v1/notifications/unread_count", { token: alice.token }))).toEqual({ count: 0 });

    // Its followers of alice are removed; alice's follow of the friend there stays.
    expect(await relationship(fan)).toMatchObject({ followed_by: false, domain_blocking: true });
    expect(await relationship(friend)).toMatchObject({ following: true, domain_blocking: true });
    expect(await counts(alice.account.id)).toMatchObject({ followers_count: 0, following_count: 1 });
    expect(await counts(fan)).toMatchObject({ following_count: 0 });
  });

  it("refuses new follows of the domain's accounts while blocked", async () => {
    const refused = await kith.request("POST", `/api/v1/accounts/${stranger}/follow`, { token: alice.token });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ code: "relationship.domain_blocked", error: expect.any(String) });
    expect(await relationship(stranger)).toMatchObject({ following: false, requested: false });
    // The friend followed before the block is still followed, and following it again is no new follow.
    expect(await relationship(friend)).toMatchObject({ following: true });
    // Nor may the domain's accounts follow alice anew: the removed followers stay removed (the inbox asks the same question).
    await expect(kith.services.follows.follow(fan, alice.account.id)).rejects.toMatchObject({ code: "relationship.blocked" });
    expect(await relationship(fan)).toMatchObject({ followed_by: false, requested_by: false });
  });

  it("serves the same rows as Mastodon's domain_blocks, paged with Link", async () => {
    for (const domain of ["a.example", "b.example"]) {
      expect((await kith.request("POST", "/api/v1/domain_blocks", { token: alice.token, form: { domain } })).status).toBe(200);
    }
    // Blocking again is no error and no second row.
    await kith.request("POST", `/api/v1/user-domain-block/a.example`, { token: alice.token });
    expect(await json(await kith.request("GET", "/api/v1/user-domain-block", { token: alice.token }))).toEqual([
      "a.example",
      "b.example",
      DOMAIN,
    ]);
    const first = await kith.request("GET", "/api/v1/domain_blocks?limit=2", { token: alice.token });
    expect(await json(first)).toEqual(["b.example", "a.example"]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const url = new URL(next ?? "");
    expect(await json(await kith.request("GET", url.pathname + url.search, { token: alice.token }))).toEqual([DOMAIN]);
    // Mastodon's unblock takes the domain as a query parameter too, and is quiet about domains not blocked.
    expect((await kith.request("DELETE", "/api/v1/domain_blocks?domain=b.example", { token: alice.token })).status).toBe(200);
    expect((await kith.request("DELETE", "/api/v1/domain_blocks", { token: alice.token, json: { domain: "b.example" } })).status).toBe(200);
    expect((await kith.request("DELETE", "/api/v1/user-domain-block/a.example", { token: alice.token })).status).toBe(200);
  });

  it("unblocks: posts show again and new follows are allowed; unblocking a domain not blocked is an error", async () => {
    const unblocked = await kith.request("DELETE", `/api/v1/user-domain-block/${DOMAIN}`, { token: alice.token });
    expect(unblocked.status).toBe(200);
    expect(await json(await kith.request("GET", "/api/v1/user-domain-block", { token: alice.token }))).toEqual([]);
    expect(await idsOf(await kith.request("GET", "/api/v1/timelines/public", { token: alice.token }))).toContain(remoteStatus);
    expect(await relationship(friend)).toMatchObject({ domain_blocking: false });
    const followed = await kith.request("POST", `/api/v1/accounts/${stranger}/follow`, { token: alice.token });
    expect(followed.status).toBe(200);
    await kith.services.follows.follow(fan, alice.account.id);
    expect(await relationship(fan)).toMatchObject({ followed_by: true });

    const again = await kith.request("DELETE", `/api/v1/user-domain-block/${DOMAIN}`, { token: alice.token });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ code: "user_domain_block.not_blocked", error: expect.any(String) });
  });

  it("refuses what is not a blockable domain, missing domains and guests", async () => {
    const host = new URL(kith.config.origin).hostname;
    for (const domain of ["nodots", host, "bad domain!"]) {
      const refused = await kith.request("POST", `/api/v1/user-domain-block/${encodeURIComponent(domain)}`, { token: alice.token });
      expect(refused.status).toBe(422);
      expect(await json(refused)).toMatchObject({ code: "user_domain_block.invalid" });
    }
    expect((await kith.request("POST", "/api/v1/domain_blocks", { token: alice.token, json: {} })).status).toBe(422);
    expect(
      (await kith.request("DELETE", `/api/v1/user-domain-block/${encodeURIComponent("bad domain!")}`, { token: alice.token })).status,
    ).toBe(422);
    expect((await kith.request("GET", "/api/v1/user-domain-block")).status).toBe(401);
    expect((await kith.request("POST", `/api/v1/user-domain-block/${DOMAIN}`)).status).toBe(401);
    expect((await kith.request("DELETE", `/api/v1/user-domain-block/${DOMAIN}`)).status).toBe(401);
    expect((await kith.request("GET", "/api/v1/domain_blocks")).status).toBe(401);
    expect(await json(await kith.request("GET", "/api/v1/user-domain-block", { token: alice.token }))).toEqual([]);
  });
});
