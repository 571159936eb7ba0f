import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

interface NotificationJson {
  id: string;
  type: string;
  account: { id: string };
  status: { id: string } | null;
}

// Mastodon removes a notification with what made it: an undone follow, favourite or boost leaves no notice behind,
// neither listed, nor counted unread, nor in a v2 group.
describeOnEngines("notifications of undone acts", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`nu${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function call(u: TestUser, method: string, path: string, json?: unknown): Promise<Response> {
    const response = await kith.request(method, path, { token: u.token, ...(json !== undefined && { json }) });
    expect(response.status, `${method} ${path}`).toBe(200);
    await kith.services.events.settled();
    return response;
  }

  async function seen(u: TestUser): Promise<{ listed: string[]; unread: number; groups: string[] }> {
    const listed = (await (await call(u, "GET", "/api/v1/notifications")).json()) as NotificationJson[];
    const unread = ((await (await call(u, "GET", "/api/v1/notifications/unread_count")).json()) as { count: number }).count;
    const grouped = (await (await call(u, "GET", "/api/v2/notifications")).json()) as { notification_groups: { type: string }[] };
    return { listed: listed.map((n) => n.type), unread, groups: grouped.notification_groups.map((g) => g.type) };
  }

  async function statusOf(u: TestUser): Promise<string> {
    const response = await call(u, "POST", "/api/v1/statuses", { status: "hello" });
    return ((await response.json()) as { id: string }).id;
  }

  it("unfavouriting, unboosting and unfollowing take their notifications, v1, v2 and the unread count", async () => {
    const [alice, bob] = [await user(), await user()];
    const mine = await statusOf(alice);
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    await call(bob, "POST", `/api/v1/statuses/${mine}/favourite`);
    await call(bob, "POST", `/api/v1/statuses/${mine}/reblog`);
    expect(await seen(alice)).toEqual({
      listed: ["reblog", "favourite", "follow"],
      unread: 3,
      groups: ["reblog", "favourite", "follow"],
    });

    await call(bob, "POST", `/api/v1/statuses/${mine}/unfavourite`);
    expect(await seen(alice)).toEqual({ listed: ["reblog", "follow"], unread: 2, groups: ["reblog", "follow"] });
    await call(bob, "POST", `/api/v1/statuses/${mine}/unreblog`);
    expect(await seen(alice)).toEqual({ listed: ["follow"], unread: 1, groups: ["follow"] });
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/unfollow`);
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });
  });

  it("deleting a boost as a status takes its notification; another account's boost keeps its own", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    const mine = await statusOf(alice);
    const boost = ((await (await call(bob, "POST", `/api/v1/statuses/${mine}/reblog`)).json()) as { id: string }).id;
    await call(carol, "POST", `/api/v1/statuses/${mine}/reblog`);
    await call(bob, "DELETE", `/api/v1/statuses/${boost}`);
    const listed = (await (await call(alice, "GET", "/api/v1/notifications")).json()) as NotificationJson[];
    expect(listed.map((n) => [n.type, n.account.id])).toEqual([["reblog", carol.account.id]]);
  });

  it("a withdrawn follow request and a follower removed take their notifications", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    await call(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: true });
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    expect((await seen(alice)).listed).toEqual(["follow_request"]);
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/unfollow`);
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });

    await call(alice, "PATCH", "/api/v1/accounts/update_credentials", { locked: false });
    await call(carol, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    expect((await seen(alice)).listed).toEqual(["follow"]);
    await call(alice, "POST", `/api/v1/accounts/${carol.account.id}/remove_from_followers`);
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });
  });

  it("a block ends the follow and its notification: unblocking does not bring it back", async () => {
    const [alice, bob] = [await user(), await user()];
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    await call(alice, "POST", `/api/v1/accounts/${bob.account.id}/block`);
    await call(alice, "POST", `/api/v1/accounts/${bob.account.id}/unblock`);
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });
  });

  it("a status deleted takes the mention it made", async () => {
    const [alice, bob] = [await user(), await user()];
    const response = await call(bob, "POST", "/api/v1/statuses", { status: `hi @${alice.account.username}` });
    const { id } = (await response.json()) as { id: string };
    expect((await seen(alice)).listed).toEqual(["mention"]);
    await call(bob, "DELETE", `/api/v1/statuses/${id}`);
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });
  });

  it("an edit that drops a mention takes its notification; one it keeps stays", async () => {
    const [alice, bob, carol] = [await user(), await user(), await user()];
    const text = (who: TestUser[]) => `hi ${who.map((u) => `@${u.account.username}`).join(" ")}`;
    const response = await call(bob, "POST", "/api/v1/statuses", { status: text([alice, carol]) });
    const { id } = (await response.json()) as { id: string };
    expect((await seen(alice)).listed).toEqual(["mention"]);
    expect((await seen(carol)).listed).toEqual(["mention"]);
    await call(bob, "PUT", `/api/v1/statuses/${id}`, { status: text([carol]) });
    expect(await seen(alice)).toEqual({ listed: [], unread: 0, groups: [] });
    expect((await seen(carol)).listed).toEqual(["mention"]);
  });
});
