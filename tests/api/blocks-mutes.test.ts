/**
 * Blocks, mutes, relationships and familiar followers over the API, on both
 * engines: what each does to follows, posts and notifications, the lists
 * paged with `Link`, and the refusals.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json } from "./relationships-support.js";
import { describeOnEngines } from "../support/engines.js";

interface Relationship {
  id: string;
  following: boolean;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  requested: boolean;
}

const RELATIONSHIP_KEYS = [
  "id",
  "following",
  "showing_reblogs",
  "notifying",
  "languages",
  "followed_by",
  "blocking",
  "blocked_by",
  "muting",
  "muting_notifications",
  "requested",
  "requested_by",
  "domain_blocking",
  "endorsed",
  "note",
];

/** The path and query of the `rel="next"` link, or undefined. */
function nextLink(response: Response): string | undefined {
  const next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
  return next ? new URL(next).pathname + new URL(next).search : undefined;
}

describeOnEngines("blocks, mutes and relationships", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const relationship = async (viewer: TestUser, id: string): Promise<Relationship> => {
    const [one] = await json<Relationship[]>(
      await kith.request("GET", `/api/v1/accounts/relationships?id[]=${id}`, { token: viewer.token }),
    );
    if (!one) throw new Error(`No relationship with ${id}`);
    return one;
  };
  const followersCount = async (id: string): Promise<number> =>
    (await json<{ followers_count: number }>(await kith.request("GET", `/api/v1/accounts/${id}`))).followers_count;
  const notificationTypes = async (user: TestUser): Promise<string[]> =>
    (
      await json<{ type: string; account: { id: string } }[]>(await kith.request("GET", "/api/v1/notifications", { token: user.token }))
    ).map((n) => `${n.type}:${n.account.id}`);

  it("blocks end follows both ways, hide posts both ways and refuse new follows; unblock lifts it", async () => {
    const alice = await kith.createUser("bm_alice");
    const bob = await kith.createUser("bm_bob");
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });
    await kith.request("POST", `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token });
    const bobPost = await json<{ id: string }>(
      await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "bob here" } }),
    );

    const blocked = await kith.request("POST", `/api/v1/accounts/${bob.account.id}/block`, { token: alice.token });
    expect(blocked.status).toBe(200);
    const entity = await json<Record<string, unknown>>(blocked);
    expect(Object.keys(entity).sort()).toEqual([...RELATIONSHIP_KEYS].sort());
    expect(entity).toMatchObject({ id: bob.account.id, blocking: true, following: false, followed_by: false });
    expect(await relationship(bob, alice.account.id)).toMatchObject({ blocked_by: true, following: false, followed_by: false });
    expect(await followersCount(alice.account.id)).toBe(0);
    expect(await followersCount(bob.account.id)).toBe(0);

    // Hidden both ways: the blocker does not see the blocked's post, nor the blocked the blocker's.
    expect((await kith.request("GET", `/api/v1/statuses/${bobPost.id}`, { token: alice.token })).status).toBe(404);
    const alicePost = await json<{ id: string }>(
      await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "alice here" } }),
    );
    expect((await kith.request("GET", `/api/v1/statuses/${alicePost.id}`, { token: bob.token })).status).toBe(404);
    // The blocked account can neither follow nor mention its way back into notifications.
    const refollow = await kith.request("POST", `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token });
    expect(refollow.status).toBe(403);
    expect(await json(refollow)).toMatchObject({ code: "relationship.blocked" });
    await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "@bm_alice hello?" } });
    expect(await notificationTypes(alice)).not.toContain(`mention:${bob.account.id}`);

    // Blocking again changes nothing; unblocking lifts the block but not the follows it ended.
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/block`, { token: alice.token });
    const unblocked = await json<Relationship>(
      await kith.request("POST", `/api/v1/accounts/${bob.account.id}/unblock`, { token: alice.token }),
    );
    expect(unblocked).toMatchObject({ blocking: false, following: false, followed_by: false });
    expect((await kith.request("GET", `/api/v1/statuses/${bobPost.id}`, { token: alice.token })).status).toBe(200);
  });

  it("lists blocks and mutes newest first, paged with Link", async () => {
    const owner = await kith.createUser("bm_lister");
    for (const action of ["block", "mute"]) {
      const targets = [];
      for (let i = 0; i < 3; i++) {
        const target = await kith.createUser(`bm_${action}ed${i}`);
        targets.push(target.account.id);
        await kith.request("POST", `/api/v1/accounts/${target.account.id}/${action}`, { token: owner.token });
      }
      const first = await kith.request("GET", `/api/v1/${action}s?limit=2`, { token: owner.token });
      expect((await json<{ id: string }[]>(first)).map((a) => a.id)).toEqual([targets[2], targets[1]]);
      const next = nextLink(first);
      expect(next).toBeDefined();
      const second = await kith.request("GET", next ?? "", { token: owner.token });
      expect((await json<{ id: string }[]>(second)).map((a) => a.id)).toEqual([targets[0]]);
    }
  });

  it("mutes hide posts, keep or hide notifications as asked, end after their duration, and list with mute_expires_at", async () => {
    const alice = await kith.createUser("bm_muter");
    const bob = await kith.createUser("bm_muted");
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/follow`, { token: alice.token });

    // A mute that lets notifications through, for one hour.
    const muted = await kith.request("POST", `/api/v1/accounts/${bob.account.id}/mute`, {
      token: alice.token,
      json: { notifications: false, duration: 3600 },
    });
    expect(await json(muted)).toMatchObject({ muting: true, muting_notifications: false, following: true });
    const hiddenPost = await json<{ id: string }>(
      await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "muted talk" } }),
    );
    const home = await json<{ id: string }[]>(await kith.request("GET", "/api/v1/timelines/home", { token: alice.token }));
    expect(home.map((s) => s.id)).not.toContain(hiddenPost.id);
    await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "@bm_muter still reaches you" } });
    expect(await notificationTypes(alice)).toContain(`mention:${bob.account.id}`);

    const mutes = await json<{ id: string; mute_expires_at: string | null }[]>(
      await kith.request("GET", "/api/v1/mutes", { token: alice.token }),
    );
    expect(mutes.map((m) => m.id)).toEqual([bob.account.id]);
    expect(Date.parse(mutes[0]?.mute_expires_at ?? "") - kith.clock.now().getTime()).toBe(3_600_000);

    // Muting again changes the options: now notifications are hidden too, for ever.
    const changed = await kith.request("POST", `/api/v1/accounts/${bob.account.id}/mute`, {
      token: alice.token,
      form: { notifications: "true", duration: "0" },
    });
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({ muting: true, muting_notifications: true });
    expect(await notificationTypes(alice)).not.toContain(`mention:${bob.account.id}`);
    const forEver = await json<{ mute_expires_at: string | null }[]>(await kith.request("GET", "/api/v1/mutes", { token: alice.token }));
    expect(forEver[0]?.mute_expires_at).toBeNull();

    // A timed mute ends by itself.
    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/mute`, { token: alice.token, json: { duration: 60 } });
    kith.clock.advance(61_000);
    expect(await relationship(alice, bob.account.id)).toMatchObject({ muting: false, muting_notifications: false });
    expect(await json(await kith.request("GET", "/api/v1/mutes", { token: alice.token }))).toEqual([]);
    expect(await notificationTypes(alice)).toContain(`mention:${bob.account.id}`);

    await kith.request("POST", `/api/v1/accounts/${bob.account.id}/mute`, { token: alice.token });
    const unmuted = await json<Relationship>(
      await kith.request("POST", `/api/v1/accounts/${bob.account.id}/unmute`, { token: alice.token }),
    );
    expect(unmuted).toMatchObject({ muting: false, following: true });
  });

  it("refuses oneself (422), unknown accounts (404), bad options (400, 422) and guests (401)", async () => {
    const alice = await kith.createUser("bm_refuser");
    const unknown = "us_00000000000000000000000000";
    for (const action of ["block", "mute"]) {
      const self = await kith.request("POST", `/api/v1/accounts/${alice.account.id}/${action}`, { token: alice.token });
      expect(self.status).toBe(422);
      expect(await json(self)).toMatchObject({ code: "relationship.self", error: expect.any(String) });
    }
    for (const action of ["block", "unblock", "mute", "unmute"]) {
      expect((await kith.request("POST", `/api/v1/accounts/${unknown}/${action}`, { token: alice.token })).status).toBe(404);
      expect((await kith.request("POST", `/api/v1/accounts/${alice.account.id}/${action}`)).status).toBe(401);
    }
    const other = await kith.createUser("bm_other");
    // Malformed values are 400, well-formed but unacceptable ones 422.
    const badBodies: [Record<string, unknown>, number][] = [
      [{ duration: -1 }, 422],
      [{ duration: "soon" }, 400],
      [{ notifications: "perhaps" }, 400],
    ];
    for (const [body, status] of badBodies) {
      const bad = await kith.request("POST", `/api/v1/accounts/${other.account.id}/mute`, { token: alice.token, json: body });
      expect(bad.status).toBe(status);
      expect(await json(bad)).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect((await relationship(alice, other.account.id)).muting).toBe(false);
    for (const path of ["/api/v1/blocks", "/api/v1/mutes", `/api/v1/accounts/relationships?id[]=${other.account.id}`]) {
      expect((await kith.request("GET", path)).status).toBe(401);
    }
    expect((await kith.request("GET", "/api/v1/blocks?limit=nope", { token: alice.token })).status).toBe(400);
  });

  it("answers relationships for several ids in order, and familiar followers among the caller's follows", async () => {
    const me = await kith.createUser("bm_me");
    const friendA = await kith.createUser("bm_friend_a");
    const friendB = await kith.createUser("bm_friend_b");
    const stranger = await kith.createUser("bm_stranger");
    const star = await kith.createUser("bm_star");
    for (const friend of [friendA, friendB])
      await kith.request("POST", `/api/v1/accounts/${friend.account.id}/follow`, { token: me.token });
    for (const fan of [friendA, friendB, stranger])
      await kith.request("POST", `/api/v1/accounts/${star.account.id}/follow`, { token: fan.token });
    // A muted friend still counts as familiar; a blocked one (below) does not.
    await kith.request("POST", `/api/v1/accounts/${friendB.account.id}/mute`, { token: me.token });

    const unknown = "us_00000000000000000000000000";
    const several = await json<Relationship[]>(
      await kith.request("GET", `/api/v1/accounts/relationships?id[]=${star.account.id}&id[]=${friendA.account.id}&id[]=${unknown}`, {
        token: me.token,
      }),
    );
    expect(several.map((r) => [r.id, r.following])).toEqual([
      [star.account.id, false],
      [friendA.account.id, true],
    ]);

    const familiar = await json<{ id: string; accounts: { id: string }[] }[]>(
      await kith.request("GET", `/api/v1/accounts/familiar_followers?id[]=${star.account.id}&id[]=${stranger.account.id}`, {
        token: me.token,
      }),
    );
    expect(familiar.map((f) => [f.id, f.accounts.map((a) => a.id).sort()])).toEqual([
      [star.account.id, [friendA.account.id, friendB.account.id].sort()],
      [stranger.account.id, []],
    ]);
    await kith.request("POST", `/api/v1/accounts/${friendB.account.id}/block`, { token: me.token });
    const afterBlock = await json<{ id: string; accounts: { id: string }[] }[]>(
      await kith.request("GET", `/api/v1/accounts/familiar_followers?id[]=${star.account.id}`, { token: me.token }),
    );
    expect(afterBlock[0]?.accounts.map((a) => a.id)).toEqual([friendA.account.id]);
    expect((await kith.request("GET", `/api/v1/accounts/familiar_followers?id[]=${star.account.id}`)).status).toBe(401);
  });
});
