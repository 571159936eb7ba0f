/**
 * Notification policies and requests (Mastodon 4.3): what a policy filters
 * is held as a request, out of the notifications' list, counts and streams;
 * what it drops is not written; accepting a request lets its account's
 * notifications through, dismissing forgets them. Both API versions of the
 * policy, the requests' routes, and masto.js over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith, TestUser } from "@kith/core/testing";
import { createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

type Json = Record<string, unknown>;

describeOnEngines("notification policy and requests", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const fresh = (options?: { scopes?: readonly string[] }) => kith.createUser(`np${++serial}`, options);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith?.close());

  const call = async (user: TestUser | null, method: string, path: string, json?: unknown) => {
    const response = await kith.request(method, path, { ...(user && { token: user.token }), ...(json !== undefined && { json }) });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const ok = async (user: TestUser, method: string, path: string, json?: unknown) => {
    const response = await call(user, method, path, json);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body as Json & Json[];
  };
  const post = async (user: TestUser, status: string, visibility = "public") =>
    String((await ok(user, "POST", "/api/v1/statuses", { status, visibility })).id);
  const notificationsOf = async (user: TestUser) => (await ok(user, "GET", "/api/v1/notifications")) as unknown as Json[];
  const fromOf = (list: Json[]) => list.map((n) => (n.account as Json).id);
  const policyOf = async (user: TestUser) => (await ok(user, "GET", "/api/v2/notifications/policy")) as Json;
  const heldRows = (user: TestUser, from: TestUser) =>
    kith.storage.db
      .selectFrom("notifications")
      .select(["id", "type"])
      .where("account_id", "=", user.account.id)
      .where("from_account_id", "=", from.account.id)
      .execute();

  it("answers Mastodon's defaults, in both versions", async () => {
    const user = await fresh();
    const summary = { pending_requests_count: 0, pending_notifications_count: 0 };
    expect(await policyOf(user)).toEqual({
      for_not_following: "accept",
      for_not_followers: "accept",
      for_new_accounts: "accept",
      for_private_mentions: "filter",
      for_limited_accounts: "filter",
      summary,
    });
    expect(await ok(user, "GET", "/api/v1/notifications/policy")).toEqual({
      filter_not_following: false,
      filter_not_followers: false,
      filter_new_accounts: false,
      filter_private_mentions: true,
      summary,
    });
  });

  it("changes only the values given, and v1's booleans are filter and accept", async () => {
    const user = await fresh();
    expect(
      await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_following: "drop", for_new_accounts: "filter" }),
    ).toMatchObject({
      for_not_following: "drop",
      for_not_followers: "accept",
      for_new_accounts: "filter",
      for_private_mentions: "filter",
    });
    expect(
      await ok(user, "PUT", "/api/v1/notifications/policy", { filter_not_followers: true, filter_private_mentions: "false" }),
    ).toMatchObject({
      filter_not_following: true,
      filter_not_followers: true,
      filter_new_accounts: true,
      filter_private_mentions: false,
    });
    expect(await policyOf(user)).toMatchObject({
      for_not_following: "drop",
      for_not_followers: "filter",
      for_new_accounts: "filter",
      for_private_mentions: "accept",
      for_limited_accounts: "filter",
    });
  });

  it("holds what it filters as a request, out of the list and counts, until accepted; the account then comes through", async () => {
    const user = await fresh();
    const stranger = await fresh();
    const friend = await fresh();
    await ok(user, "POST", `/api/v1/accounts/${friend.account.id}/follow`);
    await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_following: "filter" });
    const status = await post(user, "a status");
    await ok(stranger, "POST", `/api/v1/statuses/${status}/favourite`);
    await ok(stranger, "POST", `/api/v1/statuses/${status}/reblog`);
    await ok(friend, "POST", `/api/v1/statuses/${status}/favourite`);

    // Only the followed account's notification is in the list and the counts.
    expect(fromOf(await notificationsOf(user))).toEqual([friend.account.id]);
    expect(await ok(user, "GET", "/api/v1/notifications/unread_count")).toEqual({ count: 1 });
    const grouped = (await ok(user, "GET", "/api/v2/notifications")) as Json;
    expect((grouped.notification_groups as Json[]).map((g) => g.sample_account_ids)).toEqual([[friend.account.id]]);
    expect(await ok(user, "GET", "/api/v2/notifications/unread_count")).toEqual({ count: 1 });
    expect((await heldRows(user, stranger)).length).toBe(2);

    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 2 });
    const requests = (await ok(user, "GET", "/api/v1/notifications/requests")) as unknown as Json[];
    expect(requests).toEqual([
      {
        id: stranger.account.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        account: expect.objectContaining({ id: stranger.account.id }),
        notifications_count: "2",
        last_status: expect.objectContaining({ id: status }),
      },
    ]);
    expect(await ok(user, "GET", `/api/v1/notifications/requests/${stranger.account.id}`)).toEqual(requests[0]);
    // Someone else's request is not the caller's.
    expect((await call(friend, "GET", `/api/v1/notifications/requests/${stranger.account.id}`)).status).toBe(404);
    expect((await call(friend, "POST", `/api/v1/notifications/requests/${stranger.account.id}/accept`)).status).toBe(404);

    await ok(user, "POST", `/api/v1/notifications/requests/${stranger.account.id}/accept`);
    expect(new Set(fromOf(await notificationsOf(user)))).toEqual(new Set([friend.account.id, stranger.account.id]));
    expect((await notificationsOf(user)).length).toBe(3);
    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    expect((await call(user, "GET", `/api/v1/notifications/requests/${stranger.account.id}`)).status).toBe(404);
    expect((await call(user, "POST", `/api/v1/notifications/requests/${stranger.account.id}/accept`)).status).toBe(404);

    // Accepted: the account's next notifications come through, though the user still does not follow it.
    await ok(stranger, "POST", `/api/v1/accounts/${user.account.id}/follow`);
    expect((await notificationsOf(user)).filter((n) => n.type === "follow").map((n) => (n.account as Json).id)).toEqual([
      stranger.account.id,
    ]);
  });

  it("forgets a dismissed request's notifications; a later one makes a new request", async () => {
    const user = await fresh();
    const stranger = await fresh();
    await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_following: "filter" });
    await ok(stranger, "POST", `/api/v1/accounts/${user.account.id}/follow`);
    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 });
    await ok(user, "POST", `/api/v1/notifications/requests/${stranger.account.id}/dismiss`);
    expect(await heldRows(user, stranger)).toEqual([]);
    expect((await call(user, "POST", `/api/v1/notifications/requests/${stranger.account.id}/dismiss`)).status).toBe(404);
    expect(await notificationsOf(user)).toEqual([]);
    await post(stranger, `@${user.account.username} hello`);
    expect(((await ok(user, "GET", "/api/v1/notifications/requests")) as unknown as Json[]).map((r) => r.id)).toEqual([
      stranger.account.id,
    ]);
  });

  it("drops what it drops: nothing is written, no request is made", async () => {
    const user = await fresh();
    const stranger = await fresh();
    await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_followers: "drop" });
    await post(stranger, `@${user.account.username} you do not know me`);
    expect(await heldRows(user, stranger)).toEqual([]);
    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    // A follower is not refused.
    await ok(stranger, "POST", `/api/v1/accounts/${user.account.id}/follow`);
    expect(fromOf(await notificationsOf(user))).toEqual([stranger.account.id]);
  });

  it("filters private mentions from accounts not followed by default, and not public ones", async () => {
    const user = await fresh();
    const stranger = await fresh();
    await post(stranger, `@${user.account.username} a private word`, "direct");
    expect(await notificationsOf(user)).toEqual([]);
    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 });
    await post(stranger, `@${user.account.username} a public word`);
    expect((await notificationsOf(user)).map((n) => n.type)).toEqual(["mention"]);
    // Followed: a private mention is no stranger's.
    const friend = await fresh();
    await ok(user, "POST", `/api/v1/accounts/${friend.account.id}/follow`);
    await post(friend, `@${user.account.username} between us`, "direct");
    expect(fromOf(await notificationsOf(user))).toContain(friend.account.id);
  });

  it("accepts and dismisses in bulk with id[], passing over ids that have no request", async () => {
    const user = await fresh();
    await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_following: "filter" });
    const [a, b, c] = [await fresh(), await fresh(), await fresh()];
    for (const sender of [a, b, c]) await ok(sender, "POST", `/api/v1/accounts/${user.account.id}/follow`);
    expect((await policyOf(user)).summary).toMatchObject({ pending_requests_count: 3 });
    const form = `id[]=${a.account.id}&id[]=${b.account.id}&id[]=us_nobody`;
    const accepted = await kith.request("POST", "/api/v1/notifications/requests/accept", {
      token: user.token,
      body: form,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(accepted.status).toBe(200);
    expect(new Set(fromOf(await notificationsOf(user)))).toEqual(new Set([a.account.id, b.account.id]));
    await ok(user, "POST", "/api/v1/notifications/requests/dismiss", { id: [c.account.id, "us_nobody"] });
    expect((await policyOf(user)).summary).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    expect(await ok(user, "GET", "/api/v1/notifications/requests/merged")).toEqual({ merged: true });
  });

  it("pages the requests, newest first, with a Link header", async () => {
    const user = await fresh();
    await ok(user, "PATCH", "/api/v2/notifications/policy", { for_not_following: "filter" });
    const senders = [await fresh(), await fresh(), await fresh()];
    for (const sender of senders) await ok(sender, "POST", `/api/v1/accounts/${user.account.id}/follow`);
    const first = await kith.request("GET", "/api/v1/notifications/requests?limit=2", { token: user.token });
    const page = (await first.json()) as Json[];
    expect(page.map((r) => r.id)).toEqual([senders[2]?.account.id, senders[1]?.account.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const url = new URL(next ?? "");
    const rest = (await ok(user, "GET", `${url.pathname}${url.search}`)) as unknown as Json[];
    expect(rest.map((r) => r.id)).toEqual([senders[0]?.account.id]);
  });

  it("refuses bad input, and callers without a token or the scope", async () => {
    const user = await fresh();
    const bad = async (method: string, path: string, json: unknown, status: number) => {
      const response = await call(user, method, path, json);
      expect(response.status, `${method} ${path} ${JSON.stringify(json)}`).toBe(status);
      expect(response.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    };
    await bad("PATCH", "/api/v2/notifications/policy", { for_not_following: "maybe" }, 422);
    await bad("PUT", "/api/v1/notifications/policy", { filter_not_following: "maybe" }, 400);
    await bad("POST", "/api/v1/notifications/requests/accept", {}, 400);
    await bad("POST", "/api/v1/notifications/requests/dismiss", { id: [] }, 422);
    await bad("POST", "/api/v1/notifications/requests/accept", { id: Array.from({ length: 101 }, (_, i) => `us_${i}`) }, 422);
    expect(await policyOf(user)).toMatchObject({ for_not_following: "accept" });

    const routes: [string, string][] = [
      ["GET", "/api/v2/notifications/policy"],
      ["PATCH", "/api/v2/notifications/policy"],
      ["PUT", "/api/v2/notifications/policy"],
      ["GET", "/api/v1/notifications/policy"],
      ["PUT", "/api/v1/notifications/policy"],
      ["GET", "/api/v1/notifications/requests"],
      ["GET", "/api/v1/notifications/requests/merged"],
      ["GET", `/api/v1/notifications/requests/${user.account.id}`],
      ["POST", `/api/v1/notifications/requests/${user.account.id}/accept`],
      ["POST", `/api/v1/notifications/requests/${user.account.id}/dismiss`],
      ["POST", "/api/v1/notifications/requests/accept"],
      ["POST", "/api/v1/notifications/requests/dismiss"],
    ];
    const unscoped = await fresh({ scopes: ["read:statuses", "write:statuses", "push"] });
    for (const [method, path] of routes) {
      const json =
        method === "GET" ? undefined : path.endsWith("requests/accept") || path.endsWith("requests/dismiss") ? { id: ["x"] } : {};
      expect((await call(null, method, path, json)).status, `${method} ${path}`).toBe(401);
      expect((await call(unscoped, method, path, json)).status, `${method} ${path}`).toBe(403);
    }
  });

  describe("masto.js over HTTP", () => {
    let http: NodeServer;
    beforeAll(async () => {
      http = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    });
    afterAll(() => http?.close());

    it("reads and changes the policy, and lists, reads, accepts and dismisses requests", async () => {
      const user = await fresh();
      const client = createRestAPIClient({ url: http.url, accessToken: user.token });
      expect(await client.v2.notifications.policy.fetch()).toMatchObject({ forNotFollowing: "accept", forPrivateMentions: "filter" });
      expect(await client.v2.notifications.policy.update({ forNotFollowing: "filter" })).toMatchObject({ forNotFollowing: "filter" });
      const [a, b] = [await fresh(), await fresh()];
      for (const sender of [a, b]) await ok(sender, "POST", `/api/v1/accounts/${user.account.id}/follow`);
      const requests = await client.v1.notifications.requests.list();
      expect(requests.map((r) => r.id)).toEqual([b.account.id, a.account.id]);
      expect(await client.v1.notifications.requests.$select(a.account.id).fetch()).toMatchObject({
        id: a.account.id,
        account: { id: a.account.id },
      });
      await client.v1.notifications.requests.$select(a.account.id).accept();
      await client.v1.notifications.requests.$select(b.account.id).dismiss();
      expect(await client.v1.notifications.requests.list()).toEqual([]);
      expect((await client.v1.notifications.list()).map((n) => n.account?.id)).toEqual([a.account.id]);
      expect(await client.v1.notifications.requests.merged.fetch()).toEqual({ merged: true });
    });
  });
});
