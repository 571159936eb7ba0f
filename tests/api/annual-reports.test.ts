/**
 * Mastodon's annual reports: a year is eligible once the account wrote in
 * it; generating goes through the queue; the report holds the year's real
 * activity and names its statuses and accounts; reading it takes it off the
 * list of unread ones.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("annual reports", (engine) => {
  let kith: TestKith;
  let author: TestUser;
  let friend: TestUser;
  let year: number;

  const call = async (method: string, path: string, token: string | undefined, json?: unknown) => {
    const response = await kith.request(method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    kith = await engine.testKith();
    year = kith.clock.now().getUTCFullYear();
    author = await kith.createUser("ar_author");
    friend = await kith.createUser("ar_friend");
  });
  afterAll(() => kith.close());

  it("answers 401 without a token and refuses tokens without the account scopes", async () => {
    expect((await call("GET", "/api/v1/annual_reports", undefined)).status).toBe(401);
    expect((await call("POST", `/api/v1/annual_reports/${year}/generate`, undefined)).status).toBe(401);
    const narrow = await kith.createUser("ar_narrow", { scopes: ["read:statuses"] });
    expect((await call("GET", `/api/v1/annual_reports/${year}/state`, narrow.token)).status).toBe(403);
  });

  it("is ineligible without activity, and for years to come or malformed", async () => {
    expect((await call("GET", `/api/v1/annual_reports/${year}/state`, author.token)).body).toEqual({ state: "ineligible" });
    expect((await call("GET", `/api/v1/annual_reports/${year + 1}/state`, author.token)).body).toEqual({ state: "ineligible" });
    expect((await call("POST", `/api/v1/annual_reports/${year}/generate`, author.token)).status).toBe(422);
    expect((await call("GET", "/api/v1/annual_reports/20x6/state", author.token)).status).toBe(404);
    expect((await call("GET", `/api/v1/annual_reports/${year}`, author.token)).status).toBe(404);
    expect((await call("POST", `/api/v1/annual_reports/${year}/read`, author.token)).status).toBe(404);
  });

  it("generates the year's report on the queue from the account's real activity", async () => {
    const posted = await call("POST", "/api/v1/statuses", author.token, { status: "hello #garden #garden2" });
    const top = posted.body.id as string;
    await call("POST", "/api/v1/statuses", author.token, { status: "more #garden" });
    const other = await call("POST", "/api/v1/statuses", friend.token, { status: "friend's" });
    await call("POST", "/api/v1/statuses", author.token, { status: "a reply", in_reply_to_id: other.body.id });
    await call("POST", `/api/v1/statuses/${other.body.id}/reblog`, author.token);
    await call("POST", `/api/v1/statuses/${top}/favourite`, friend.token);
    await call("POST", `/api/v1/accounts/${friend.account.id}/follow`, author.token);
    await kith.services.events.settled();

    expect((await call("GET", `/api/v1/annual_reports/${year}/state`, author.token)).body).toEqual({ state: "eligible" });
    const generated = await call("POST", `/api/v1/annual_reports/${year}/generate`, author.token);
    expect(generated.status).toBe(202);
    expect((await call("GET", `/api/v1/annual_reports/${year}/state`, author.token)).body).toEqual({ state: "generating" });
    expect((await call("POST", `/api/v1/annual_reports/${year}/generate`, author.token)).status).toBe(202);

    // The workers start: the queued job writes the report.
    await kith.start();
    await vi.waitFor(
      async () => expect((await call("GET", `/api/v1/annual_reports/${year}/state`, author.token)).body).toEqual({ state: "available" }),
      { timeout: 15_000, interval: 50 },
    );

    const listed = await call("GET", "/api/v1/annual_reports", author.token);
    expect(listed.status).toBe(200);
    expect(listed.body.annual_reports).toHaveLength(1);
    const report = listed.body.annual_reports[0];
    const month = kith.clock.now().getUTCMonth() + 1;
    expect(report).toMatchObject({ year, account_id: author.account.id, schema_version: 2, share_url: null });
    expect(report.data.type_distribution).toEqual({ total: 4, reblogs: 1, replies: 1, standalone: 2 });
    expect(report.data.top_hashtags).toEqual([
      { name: "garden", count: 2 },
      { name: "garden2", count: 1 },
    ]);
    expect(report.data.top_statuses).toEqual({ by_reblogs: null, by_favourites: top, by_replies: null });
    expect(report.data.time_series).toHaveLength(12);
    expect(report.data.time_series[month - 1]).toEqual({ month, statuses: 4, following: 1, followers: 0 });
    expect(report.data.commonly_interacted_with).toEqual([{ account_id: friend.account.id, count: 1 }]);
    expect(report.data.archetype).toBe("oracle");
    expect(report.data.percentiles).toEqual({ followers: expect.any(Number), statuses: expect.any(Number) });
    expect(listed.body.statuses.map((s: { id: string }) => s.id)).toEqual([top]);
    expect(listed.body.accounts.map((a: { id: string }) => a.id).sort()).toEqual([author.account.id, friend.account.id].sort());

    expect((await call("GET", `/api/v1/annual_reports/${year}`, author.token)).body.annual_reports[0].year).toBe(year);
    // Another account sees none of it.
    expect((await call("GET", `/api/v1/annual_reports/${year}`, friend.token)).status).toBe(404);

    expect((await call("POST", `/api/v1/annual_reports/${year}/read`, author.token)).body).toEqual({});
    expect((await call("GET", "/api/v1/annual_reports", author.token)).body.annual_reports).toEqual([]);
    expect((await call("GET", `/api/v1/annual_reports/${year}`, author.token)).status).toBe(200);
  });
});
