import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { json } from "./relationships-support.js";

interface Counts {
  followers_count: number;
  following_count: number;
}

describeOnEngines("follows", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const counts = async (id: string): Promise<Counts> => json<Counts>(await kith.request("GET", `/api/v1/accounts/${id}`));
  const events = (types: string[]) => {
    const seen: string[] = [];
    const offs = types.map((type) =>
      kith.services.events.on(type as "follow.created", (event) => {
        seen.push(`${type}:${event.accountId}>${event.targetAccountId}`);
      }),
    );
    return {
      seen,
      off: () => {
        for (const off of offs) off();
      },
    };
  };

  it("follows an open account at once, keeps counters exact, and unfollows", async () => {
    const alice = await kith.createUser("fo_alice");
    const bob = await kith.createUser("fo_bob");
    const watch = events(["follow.created", "follow.removed"]);
    const follow = await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });
    expect(follow.status).toBe(200);
    expect(await json(follow)).toMatchObject({
      id: bob.account.id,
      following: true,
      requested: false,
      showing_reblogs: true,
      notifying: false,
    });
    // Following again changes nothing but the options.
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });
    expect(await counts(bob.account.id)).toMatchObject({ followers_count: 1 });
    expect(await counts(alice.account.id)).toMatchObject({ following_count: 1 });
    const reverse = await json(await kith.request("GET", `/api/v1/accounts/relationships?id[]=${alice.account.id}`, { token: bob.token }));
    expect(reverse).toMatchObject([{ followed_by: true, following: false }]);

    const unfollow = await json(await kith.request("POST", `/api/v1/accounts/${bob.account.id}/unfollow`, { token: alice.token }));
    expect(unfollow).toMatchObject({ following: false });
    expect(await counts(bob.account.id)).toMatchObject({ followers_count: 0 });
    expect(await counts(alice.account.id)).toMatchObject({ following_count: 0 });
    watch.off();
    expect(watch.seen).toEqual([
      `follow.created:${alice.account.id}>${bob.account.id}`,
      `follow.removed:${alice.account.id}>${bob.account.id}`,
    ]);
  });

  it("changes an existing follow's options when following again", async () => {
    const alice = await kith.createUser("fo_opt_a");
    const bob = await kith.createUser("fo_opt_b");
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });
    const changed = await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, {
      token: alice.token,
      json: { reblogs: false, notify: true, languages: ["en", "de"] },
    });
    expect(await json(changed)).toMatchObject({ following: true, showing_reblogs: false, notifying: true, languages: ["en", "de"] });
    expect(await counts(bob.account.id)).toMatchObject({ followers_count: 1 });
  });

  it("asks a locked account, which authorizes or rejects by the requester's id", async () => {
    const owner = await kith.createUser("fo_locked");
    await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: owner.token, json: { locked: true } });
    const fan = await kith.createUser("fo_fan");
    const other = await kith.createUser("fo_other");
    const watch = events(["follow.requested", "follow.created", "follow.rejected"]);
    const asked = await json(await kith.request("POST", `/api/v1/accounts/${owner.account.id}/follow`, { token: fan.token }));
    expect(asked).toMatchObject({ following: false, requested: true });
    await kith.request("POST", `/api/v1/accounts/${owner.account.id}/follow`, { token: other.token });
    expect(await counts(owner.account.id)).toMatchObject({ followers_count: 0 });

    const list = await kith.request("GET", "/api/v1/follow_requests", { token: owner.token });
    expect((await json<{ id: string }[]>(list)).map((account) => account.id)).toEqual([other.account.id, fan.account.id]);
    const verify = await json<{ source: { follow_requests_count: number } }>(
      await kith.request("GET", "/api/v1/accounts/verify_credentials", { token: owner.token }),
    );
    expect(verify.source.follow_requests_count).toBe(2);
    const requestedBy = await json(
      await kith.request("GET", `/api/v1/accounts/relationships?id[]=${fan.account.id}`, { token: owner.token }),
    );
    expect(requestedBy).toMatchObject([{ requested_by: true }]);

    const authorized = await kith.request("POST", `/api/v1/follow_requests/${fan.account.id}/authorize`, { token: owner.token });
    expect(authorized.status).toBe(200);
    expect(await json(authorized)).toMatchObject({ id: fan.account.id, followed_by: true, requested_by: false });
    const rejected = await kith.request("POST", `/api/v1/follow_requests/${other.account.id}/reject`, { token: owner.token });
    expect(await json(rejected)).toMatchObject({ followed_by: false, requested_by: false });
    expect(await counts(owner.account.id)).toMatchObject({ followers_count: 1 });
    expect(await counts(fan.account.id)).toMatchObject({ following_count: 1 });
    watch.off();
    expect(watch.seen).toEqual([
      `follow.requested:${fan.account.id}>${owner.account.id}`,
      `follow.requested:${other.account.id}>${owner.account.id}`,
      `follow.created:${fan.account.id}>${owner.account.id}`,
      `follow.rejected:${other.account.id}>${owner.account.id}`,
    ]);
    // Nothing left to answer.
    expect((await kith.request("POST", `/api/v1/follow_requests/${other.account.id}/reject`, { token: owner.token })).status).toBe(404);
    expect((await kith.request("POST", `/api/v1/follow_requests/${fan.account.id}/authorize`, { token: owner.token })).status).toBe(404);
  });

  it("pages follow requests with Link, newest first", async () => {
    const owner = await kith.createUser("fo_locked_paged");
    await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: owner.token, json: { locked: true } });
    const fans = [];
    for (let i = 0; i < 3; i++) {
      const fan = await kith.createUser(`fo_pager${i}`);
      fans.push(fan.account.id);
      await kith.request("POST", `/api/v1/accounts/${owner.account.id}/follow`, { token: fan.token });
    }
    const first = await kith.request("GET", "/api/v1/follow_requests?limit=2", { token: owner.token });
    expect((await json<{ id: string }[]>(first)).map((a) => a.id)).toEqual([fans[2], fans[1]]);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1] ?? "");
    const second = await kith.request("GET", next.pathname + next.search, { token: owner.token });
    expect((await json<{ id: string }[]>(second)).map((a) => a.id)).toEqual([fans[0]]);
    expect((await kith.request("GET", "/api/v1/follow_requests?limit=x", { token: owner.token })).status).toBe(400);
  });

  it("withdraws a pending request with unfollow", async () => {
    const owner = await kith.createUser("fo_locked2");
    await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: owner.token, json: { locked: true } });
    const fan = await kith.createUser("fo_fan2");
    await kith.request("POST", `/api/v1/accounts/${owner.account.id}/follow`, { token: fan.token });
    const withdrawn = await json(await kith.request("POST", `/api/v1/accounts/${owner.account.id}/unfollow`, { token: fan.token }));
    expect(withdrawn).toMatchObject({ requested: false, following: false });
    expect(await json(await kith.request("GET", "/api/v1/follow_requests", { token: owner.token }))).toEqual([]);
  });

  it("removes a follower", async () => {
    const star = await kith.createUser("fo_star");
    const fan = await kith.createUser("fo_fan3");
    await kith.request("POST", `/api/v1/accounts/${star.account.id}/follow`, { token: fan.token });
    const removed = await kith.request("POST", `/api/v1/accounts/${fan.account.id}/remove_from_followers`, { token: star.token });
    expect(await json(removed)).toMatchObject({ followed_by: false });
    expect(await counts(star.account.id)).toMatchObject({ followers_count: 0 });
    expect(await counts(fan.account.id)).toMatchObject({ following_count: 0 });
  });

  it("refuses following oneself (422), unknown accounts (404) and guests (401)", async () => {
    const alice = await kith.createUser("fo_self");
    expect((await kith.request("POST", `/api/v1/accounts/${alice.account.id}/follow`, { token: alice.token })).status).toBe(422);
    expect((await kith.request("POST", "/api/v1/accounts/us_00000000000000000000000000/follow", { token: alice.token })).status).toBe(404);
    expect((await kith.request("POST", `/api/v1/accounts/${alice.account.id}/follow`)).status).toBe(401);
    expect((await kith.request("GET", "/api/v1/follow_requests")).status).toBe(401);
    const bad = await kith.request("POST", `/api/v1/accounts/${alice.account.id}/follow`, {
      token: alice.token,
      json: { reblogs: "maybe" },
    });
    expect([400, 422]).toContain(bad.status);
  });

  it("lists followers and following with Link pagination, and hides them from others on request", async () => {
    const star = await kith.createUser("fo_pop");
    const fans = [];
    for (let i = 0; i < 3; i++) {
      const fan = await kith.createUser(`fo_pf${i}`);
      fans.push(fan);
      await kith.request("POST", `/api/v1/accounts/${star.account.id}/follow`, { token: fan.token });
    }
    const first = await kith.request("GET", `/api/v1/accounts/${star.account.id}/followers?limit=2`);
    expect((await json<{ id: string }[]>(first)).map((a) => a.id)).toEqual([fans[2]?.account.id, fans[1]?.account.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const second = await kith.request("GET", new URL(next ?? "").pathname + new URL(next ?? "").search);
    expect((await json<{ id: string }[]>(second)).map((a) => a.id)).toEqual([fans[0]?.account.id]);
    const following = await json<{ id: string }[]>(await kith.request("GET", `/api/v1/accounts/${fans[0]?.account.id}/following`));
    expect(following.map((a) => a.id)).toEqual([star.account.id]);

    await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: star.token, json: { hide_collections: true } });
    expect(await json(await kith.request("GET", `/api/v1/accounts/${star.account.id}/followers`))).toEqual([]);
    expect(await json(await kith.request("GET", `/api/v1/accounts/${star.account.id}/followers`, { token: fans[0]?.token }))).toEqual([]);
    expect(
      await json<unknown[]>(await kith.request("GET", `/api/v1/accounts/${star.account.id}/followers`, { token: star.token })),
    ).toHaveLength(3);
    expect((await kith.request("GET", "/api/v1/accounts/us_00000000000000000000000000/followers")).status).toBe(404);
  });
});
