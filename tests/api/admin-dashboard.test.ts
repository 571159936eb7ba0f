/**
 * Mastodon's admin dashboard data (measures, dimensions, retention) from
 * real rows, and the review of trends (approve, reject) with its effect on
 * the public trends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

const DAY_MS = 86_400_000;

describeOnEngines("admin dashboard and trend review", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  let moderator: TestUser;
  let plain: TestUser;
  const users: TestUser[] = [];
  let today: string;

  const call = async (method: string, path: string, token: string | undefined, json?: unknown) => {
    const response = await kith.request(method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };
  const post = async (user: TestUser, status: string, extra: Record<string, unknown> = {}) => {
    const response = await call("POST", "/api/v1/statuses", user.token, { status, ...extra });
    expect(response.status).toBe(200);
    return response.body.id as string;
  };

  beforeAll(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("dash_admin", { role: "Admin" });
    moderator = await kith.createUser("dash_mod", { role: "Moderator" });
    plain = await kith.createUser("dash_plain");
    for (const name of ["dash_a", "dash_b", "dash_c"]) users.push(await kith.createUser(name));
    await kith.storage.db.updateTable("accounts").set({ discoverable: true }).execute();
    today = kith.clock.now().toISOString().slice(0, 10);
  });
  afterAll(() => kith.close());

  describe("permissions", () => {
    it("answers 401 without a token and 403 to a user without AdminSettings", async () => {
      for (const path of ["/api/v1/admin/measures", "/api/v1/admin/dimensions", "/api/v1/admin/retention"]) {
        const body = { keys: ["new_users"], start_at: today, end_at: today, frequency: "day" };
        expect((await call("POST", path, undefined, body)).status).toBe(401);
        expect((await call("POST", path, moderator.token, body)).status).toBe(403);
        expect((await call("POST", path, admin.token, body)).status).toBe(200);
      }
      expect((await call("GET", "/api/v1/admin/trends/tags", plain.token)).status).toBe(403);
      expect((await call("GET", "/api/v1/admin/trends/tags", undefined)).status).toBe(401);
      expect((await call("GET", "/api/v1/admin/trends/tags", moderator.token)).status).toBe(200);
    });
  });

  describe("measures", () => {
    it("counts new users, active users, interactions and reports per day, from real rows", async () => {
      const [a, b] = users as [TestUser, TestUser];
      const statusId = await post(a, "hello #dashtag", { language: "en" });
      await post(b, "bonjour #dashtag", { language: "fr" });
      expect((await call("POST", `/api/v1/statuses/${statusId}/favourite`, b.token)).status).toBe(200);
      expect((await call("POST", `/api/v1/statuses/${statusId}/reblog`, b.token)).status).toBe(200);
      await post(b, "a reply", { in_reply_to_id: statusId });
      expect((await call("POST", "/api/v1/reports", b.token, { account_id: a.account.id, comment: "x" })).status).toBe(200);

      const start = new Date(Date.parse(today) - 2 * DAY_MS).toISOString().slice(0, 10);
      const measured = await call("POST", "/api/v1/admin/measures", admin.token, {
        keys: ["new_users", "active_users", "interactions", "opened_reports", "resolved_reports", "no_such_key"],
        start_at: start,
        end_at: today,
      });
      expect(measured.status).toBe(200);
      const byKey = Object.fromEntries(measured.body.map((m: { key: string }) => [m.key, m]));
      expect(Object.keys(byKey).sort()).toEqual(["active_users", "interactions", "new_users", "opened_reports", "resolved_reports"]);
      expect(byKey.new_users).toMatchObject({ unit: null, total: "6", previous_total: "0" });
      expect(byKey.new_users.data).toHaveLength(3);
      expect(byKey.new_users.data[2]).toEqual({ date: `${today}T00:00:00.000Z`, value: "6" });
      expect(byKey.new_users.data[0].value).toBe("0");
      // a and b wrote; the admin, the moderator and the plain user used their sessions in the tests before.
      expect(byKey.active_users.total).toBe("5");
      expect(byKey.interactions.total).toBe("3");
      expect(byKey.opened_reports.total).toBe("1");
      expect(byKey.resolved_reports.total).toBe("0");
    });

    it("answers tag measures for the tag named, and refuses a missing id or a bad range", async () => {
      const tags = await call("GET", "/api/v1/tags/dashtag", admin.token);
      const tagId = tags.body.id as string;
      const measured = await call("POST", "/api/v1/admin/measures", admin.token, {
        keys: ["tag_uses", "tag_accounts", "tag_servers"],
        start_at: today,
        end_at: today,
        tag_uses: { id: tagId },
        tag_accounts: { id: tagId },
        tag_servers: { id: tagId },
      });
      expect(measured.body.map((m: { key: string; total: string }) => [m.key, m.total])).toEqual([
        ["tag_uses", "2"],
        ["tag_accounts", "2"],
        ["tag_servers", "1"],
      ]);
      const missing = await call("POST", "/api/v1/admin/measures", admin.token, { keys: ["tag_uses"], start_at: today, end_at: today });
      expect(missing.status).toBe(422);
      expect(
        (await call("POST", "/api/v1/admin/measures", admin.token, { keys: ["new_users"], start_at: "soon", end_at: today })).status,
      ).toBe(422);
      const backwards = await call("POST", "/api/v1/admin/measures", admin.token, {
        keys: ["new_users"],
        start_at: today,
        end_at: "2001-01-01",
      });
      expect(backwards.status).toBe(422);
      expect((await call("POST", "/api/v1/admin/measures", admin.token, { keys: [], start_at: today, end_at: today })).status).toBe(422);
    });
  });

  describe("dimensions", () => {
    it("breaks down languages, servers, space usage and software; sources is empty", async () => {
      const answered = await call("POST", "/api/v1/admin/dimensions", admin.token, {
        keys: ["languages", "servers", "space_usage", "software_versions", "sources", "tag_languages"],
        start_at: today,
        end_at: today,
        tag_languages: { id: (await call("GET", "/api/v1/tags/dashtag", admin.token)).body.id },
      });
      expect(answered.status).toBe(200);
      const byKey = Object.fromEntries(answered.body.map((d: { key: string; data: unknown[] }) => [d.key, d.data]));
      expect(byKey.languages).toEqual(
        expect.arrayContaining([
          { key: "en", human_key: "English", value: expect.any(String) },
          { key: "fr", human_key: "French", value: "1" },
        ]),
      );
      expect(byKey.servers).toEqual([]);
      expect(byKey.sources).toEqual([]);
      expect(byKey.space_usage.map((d: { key: string; unit: string }) => [d.key, d.unit])).toEqual([
        ["media", "bytes"],
        ["remote_media", "bytes"],
      ]);
      expect(byKey.software_versions.map((d: { key: string }) => d.key)).toEqual(["kith", "nodejs"]);
      expect(byKey.tag_languages.map((d: { key: string; value: string }) => [d.key, d.value]).sort()).toEqual([
        ["en", "1"],
        ["fr", "1"],
      ]);
    });
  });

  describe("retention", () => {
    it("answers a cohort per day: the users who signed up that day and the share of them active", async () => {
      const answered = await call("POST", "/api/v1/admin/retention", admin.token, { start_at: today, end_at: today, frequency: "day" });
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual([
        {
          period: `${today}T00:00:00.000Z`,
          frequency: "day",
          data: [{ date: `${today}T00:00:00.000Z`, rate: expect.any(Number), value: expect.any(String) }],
        },
      ]);
      const cohort = answered.body[0].data[0];
      expect(Number(cohort.value)).toBeGreaterThanOrEqual(2);
      expect(cohort.rate).toBeCloseTo(Number(cohort.value) / 6);
      expect(
        (await call("POST", "/api/v1/admin/retention", admin.token, { start_at: today, end_at: today, frequency: "week" })).status,
      ).toBe(422);
    });
  });

  describe("trend review", () => {
    it("lists candidates with requires_review; a rejected tag leaves the public trends, approval brings it back", async () => {
      kith.clock.advance(6 * 60_000);
      const [a, b, c] = users as [TestUser, TestUser, TestUser];
      await post(a, "#reviewme");
      await post(b, "#reviewme");
      await post(c, "#reviewme");
      const publicNames = async () => (await call("GET", "/api/v1/trends/tags", undefined)).body.map((t: { name: string }) => t.name);
      expect(await publicNames()).toContain("reviewme");

      const listed = await call("GET", "/api/v1/admin/trends/tags", admin.token);
      const tag = listed.body.find((t: { name: string }) => t.name === "reviewme");
      expect(tag).toMatchObject({ requires_review: true, trendable: true, usable: true, history: expect.any(Array) });

      const rejected = await call("POST", `/api/v1/admin/trends/tags/${tag.id}/reject`, moderator.token);
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ id: tag.id, name: "reviewme", requires_review: false, trendable: false });
      expect(await publicNames()).not.toContain("reviewme");
      const after = await call("GET", "/api/v1/admin/trends/tags", admin.token);
      expect(after.body.find((t: { name: string }) => t.name === "reviewme")).toMatchObject({ trendable: false, requires_review: false });

      expect((await call("POST", `/api/v1/admin/trends/tags/${tag.id}/approve`, admin.token)).body).toMatchObject({ trendable: true });
      expect(await publicNames()).toContain("reviewme");

      expect((await call("POST", "/api/v1/admin/trends/tags/tg_missing/reject", admin.token)).status).toBe(404);
      expect((await call("POST", `/api/v1/admin/trends/tags/${tag.id}/reject`, plain.token)).status).toBe(403);
    });

    it("a rejected status leaves the public trends; links are empty and cannot be reviewed", async () => {
      kith.clock.advance(6 * 60_000);
      const [a, b, c] = users as [TestUser, TestUser, TestUser];
      const statusId = await post(a, "trend me");
      await call("POST", `/api/v1/statuses/${statusId}/favourite`, b.token);
      await call("POST", `/api/v1/statuses/${statusId}/favourite`, c.token);
      const publicIds = async () => (await call("GET", "/api/v1/trends/statuses", undefined)).body.map((s: { id: string }) => s.id);
      expect(await publicIds()).toContain(statusId);

      const listed = await call("GET", "/api/v1/admin/trends/statuses", admin.token);
      expect(listed.body.find((s: { id: string }) => s.id === statusId)).toMatchObject({ requires_review: true });
      const rejected = await call("POST", `/api/v1/admin/trends/statuses/${statusId}/reject`, admin.token);
      expect(rejected.body).toMatchObject({ id: statusId, requires_review: false });
      expect(await publicIds()).not.toContain(statusId);
      expect((await call("GET", "/api/v1/admin/trends/statuses", admin.token)).body.map((s: { id: string }) => s.id)).toContain(statusId);
      await call("POST", `/api/v1/admin/trends/statuses/${statusId}/approve`, admin.token);
      expect(await publicIds()).toContain(statusId);
      expect((await call("POST", "/api/v1/admin/trends/statuses/st_missing/approve", admin.token)).status).toBe(404);

      expect((await call("GET", "/api/v1/admin/trends/links", admin.token)).body).toEqual([]);
      expect((await call("GET", "/api/v1/admin/trends/links/publishers", admin.token)).body).toEqual([]);
      expect((await call("POST", "/api/v1/admin/trends/links/x/approve", admin.token)).status).toBe(404);
    });
  });
});
