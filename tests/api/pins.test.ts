import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type StatusBody, get, post } from "./statuses-support.js";

describeOnEngines("pins", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
  });
  afterAll(() => kith.close());

  const pin = (user: TestUser, id: string) => kith.request("POST", `/api/v1/statuses/${id}/pin`, { token: user.token });

  it("pins own top-level posts up to the admin's maximum, shown on the profile with pinned=true", async () => {
    await kith.services.settings.update({ maxPinnedPosts: 2 });
    const first = await post(kith, alice, { status: "one" });
    const second = await post(kith, alice, { status: "two", visibility: "private" });
    const third = await post(kith, alice, { status: "three" });
    const response = await pin(alice, first.id);
    expect(response.status).toBe(200);
    expect(((await response.json()) as StatusBody).pinned).toBe(true);
    expect((await pin(alice, second.id)).status).toBe(200);
    // Pinning again is not a new pin.
    expect((await pin(alice, second.id)).status).toBe(200);
    const beyond = await pin(alice, third.id);
    expect(beyond.status).toBe(422);
    const pinned = (await (await get(kith, `/api/v1/accounts/${alice.account.id}/statuses?pinned=true`)).json()) as StatusBody[];
    expect(pinned.map((s) => s.id)).toEqual([first.id]);
    const pinnedForSelf = (await (
      await get(kith, `/api/v1/accounts/${alice.account.id}/statuses?pinned=true`, alice.token)
    ).json()) as StatusBody[];
    expect(pinnedForSelf.map((s) => s.id)).toEqual([second.id, first.id]);
    const unpinned = await kith.request("POST", `/api/v1/statuses/${first.id}/unpin`, { token: alice.token });
    expect(((await unpinned.json()) as StatusBody).pinned).toBe(false);
    expect((await pin(alice, third.id)).status).toBe(200);
  });

  it("refuses others' posts, replies, boosts and direct posts with 422", async () => {
    const mine = await post(kith, bob, { status: "bob's" });
    expect((await pin(alice, mine.id)).status).toBe(422);
    const reply = await post(kith, bob, { status: "reply", in_reply_to_id: mine.id });
    expect((await pin(bob, reply.id)).status).toBe(422);
    const direct = await post(kith, bob, { status: "@alice direct", visibility: "direct" });
    expect((await pin(bob, direct.id)).status).toBe(422);
    const boost = (await (await kith.request("POST", `/api/v1/statuses/${mine.id}/reblog`, { token: alice.token })).json()) as StatusBody;
    expect((await pin(alice, boost.id)).status).toBe(422);
    expect((await kith.request("POST", `/api/v1/statuses/${mine.id}/pin`)).status).toBe(401);
    expect((await pin(bob, "st_00000000000000000000000000")).status).toBe(404);
  });

  it("announces pins to the parts that react", async () => {
    const seen: string[] = [];
    kith.services.events.on("pin.added", (event) => {
      seen.push(event.statusId);
    });
    await kith.services.settings.update({ maxPinnedPosts: 5 });
    const status = await post(kith, bob, { status: "announce" });
    await pin(bob, status.id);
    expect(seen).toEqual([status.id]);
  });
});
