/**
 * masto.js as an administrator's client over real HTTP: the blocks on
 * sign-ups (canonical email, email domain, IP), the dashboard's measures,
 * dimensions and retention, the review of trends, and a user's annual report.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { mastodon } from "masto";
import type { TestUser } from "@kith/core/testing";
import { type CompatServer, startCompatServer } from "../support/compat-server.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js admin dashboard and blocks", (engine) => {
  let compat: CompatServer;
  let admin: TestUser;
  let client: mastodon.rest.Client;

  beforeAll(async () => {
    compat = await startCompatServer(engine);
    admin = await compat.kith.createUser("masto_dash_admin", { role: "Admin" });
    client = compat.client(admin);
  });
  afterAll(() => compat.close());

  it("manages canonical email blocks", async () => {
    const block = await client.v1.admin.canonicalEmailBlocks.create({ email: "Spam.Mer+1@example.org" });
    expect(block.canonicalEmailHash).toMatch(/^[0-9a-f]{64}$/);
    const matched = await client.v1.admin.canonicalEmailBlocks.test({ email: "spammer@example.org" });
    expect(matched.map((b) => b.id)).toEqual([block.id]);
    expect((await client.v1.admin.canonicalEmailBlocks.list()).map((b) => b.id)).toContain(block.id);
    expect((await client.v1.admin.canonicalEmailBlocks.$select(block.id).fetch()).id).toBe(block.id);
    await client.v1.admin.canonicalEmailBlocks.$select(block.id).remove();
    await expect(client.v1.admin.canonicalEmailBlocks.$select(block.id).fetch()).rejects.toThrow();
  });

  it("manages email domain blocks and IP blocks", async () => {
    const domain = await client.v1.admin.emailDomainBlocks.create({ domain: "spam.example" });
    expect(domain.domain).toBe("spam.example");
    expect(domain.history).toHaveLength(7);
    expect((await client.v1.admin.emailDomainBlocks.list()).map((b) => b.id)).toContain(domain.id);
    await client.v1.admin.emailDomainBlocks.$select(domain.id).remove();

    const ip = await client.v1.admin.ipBlocks.create({ ip: "192.0.2.9/24", severity: "sign_up_block", comment: "wave", expiresIn: 3600 });
    expect(ip).toMatchObject({ ip: "192.0.2.0/24", severity: "sign_up_block", comment: "wave" });
    expect(ip.expiresAt).toEqual(expect.any(String));
    const updated = await client.v1.admin.ipBlocks.$select(ip.id).update({ severity: "no_access" });
    expect(updated.severity).toBe("no_access");
    expect((await client.v1.admin.ipBlocks.list()).map((b) => b.id)).toContain(ip.id);
    await client.v1.admin.ipBlocks.$select(ip.id).remove();
  });

  it("reads measures, dimensions and retention", async () => {
    const today = compat.kith.clock.now().toISOString().slice(0, 10);
    const measures = await client.v1.admin.measures.create({ keys: ["new_users", "active_users"], startAt: today, endAt: today });
    expect(measures.map((m) => [m.key, m.total])).toEqual([
      ["new_users", "1"],
      ["active_users", "1"],
    ]);
    expect(measures[0]?.previousTotal).toBe("0");
    const dimensions = await client.v1.admin.dimensions.create({ keys: ["software_versions", "languages"], startAt: today, endAt: today });
    expect(dimensions.map((d) => d.key)).toEqual(["software_versions", "languages"]);
    expect(dimensions[0]?.data[0]?.humanKey).toBe("Kith");
    const cohorts = await client.v1.admin.retention.create({ startAt: today, endAt: today, frequency: "day" });
    expect(cohorts).toHaveLength(1);
    expect(cohorts[0]?.data[0]?.rate).toBe(1);
  });

  it("reviews trends", async () => {
    const users = [await compat.kith.createUser("masto_dash_a"), await compat.kith.createUser("masto_dash_b")];
    for (const user of users) await compat.client(user).v1.statuses.create({ status: "#mastotrend" });
    const tags = await client.v1.admin.trends.tags.list();
    const tag = tags.find((t) => t.name === "mastotrend");
    expect(tag?.requiresReview).toBe(true);
    const rejected = await client.v1.admin.trends.tags.$select(tag?.id ?? "").reject();
    expect(rejected.trendable).toBe(false);
    expect((await compat.client().v1.trends.tags.list()).map((t) => t.name)).not.toContain("mastotrend");
    expect(await client.v1.admin.trends.links.list()).toEqual([]);
    expect(await client.v1.admin.trends.statuses.list()).toEqual(expect.any(Array));
  });

  it("generates and reads an annual report", async () => {
    const user = await compat.kith.createUser("masto_dash_yearly");
    const own = compat.client(user);
    await own.v1.statuses.create({ status: "a year of #gardening" });
    const year = String(compat.kith.clock.now().getUTCFullYear());
    expect((await own.v1.annualReports.$select(year).state.fetch()).state).toBe("eligible");
    await own.v1.annualReports.$select(year).generate();
    await compat.kith.start();
    await vi.waitFor(async () => expect((await own.v1.annualReports.$select(year).state.fetch()).state).toBe("available"), {
      timeout: 15_000,
      interval: 50,
    });
    const wrapped = await own.v1.annualReports.list();
    expect(wrapped.annualReports[0]?.year).toBe(Number(year));
    await own.v1.annualReports.$select(year).read();
    expect((await own.v1.annualReports.list()).annualReports).toEqual([]);
  });
});
