import type { TestKith } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { post } from "../api/timelines-fixtures.js";

/** The monitoring store's upserts and aggregates, and the LIMIT conditions, answered alike by both engines. */
describeOnEngines("federation monitoring storage", (engine) => {
  let kith: TestKith;
  const DAY = 24 * 3_600_000;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(async () => {
    await kith.close();
  });

  async function remoteAccount(username: string, domain: string): Promise<string> {
    const id = kith.ids.next("user");
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("accounts")
      .values({ id, username, domain, acct_key: `${username}@${domain}`, created_at: now, updated_at: now } as never)
      .execute();
    return id;
  }

  it("counts deliveries per domain, marks and clears unreachable domains by distinct days", async () => {
    const monitor = kith.services.federationMonitor;
    const inbox = new URL("https://remote.example/inbox");
    const days = kith.config.unreachableAfterDays;
    for (let day = 0; day < days; day++) {
      await monitor.recordDelivery(inbox, "failure");
      await monitor.recordDelivery(inbox, "failure");
      kith.clock.advance(DAY);
    }
    expect(await monitor.unreachableDomains()).toEqual([
      expect.objectContaining({ domain: "remote.example", failed: 2 * days, failureDays: days }),
    ]);
    expect(await monitor.skipsDeliveryTo("remote.example")).toBe(false);
    await monitor.recordDelivery(inbox, "failure");
    expect(await monitor.skipsDeliveryTo("remote.example")).toBe(true);
    await monitor.recordDelivery(inbox, "success");
    expect(await monitor.unreachableDomains()).toEqual([]);
    expect(await monitor.deliveries()).toEqual([
      expect.objectContaining({ domain: "remote.example", succeeded: 1, failed: 2 * days + 1, failureDays: 0, unreachableSince: null }),
    ]);
  });

  it("forgets the delivery state of domains not delivered to for 30 days, as it records failures", async () => {
    const monitor = kith.services.federationMonitor;
    await monitor.recordDelivery(new URL("https://named-once.example/inbox"), "failure");
    await monitor.recordSuccesses([new URL("https://quiet.example/inbox")]);
    kith.clock.advance(20 * DAY);
    await monitor.recordDelivery(new URL("https://still-tried.example/inbox"), "failure");
    await monitor.recordSuccesses([new URL("https://still-reached.example/inbox")]);
    kith.clock.advance(11 * DAY);
    await monitor.recordDelivery(new URL("https://fresh.example/inbox"), "failure");
    expect((await monitor.deliveries()).map((state) => state.domain)).toEqual(["fresh.example", "still-reached.example", "still-tried.example"]);
  });

  it("records a batch's successes in one write: counted per domain, failure days and unreachable marks cleared", async () => {
    const monitor = kith.services.federationMonitor;
    for (let day = 0; day < kith.config.unreachableAfterDays; day++) {
      await monitor.recordDelivery(new URL("https://b.example/inbox"), "failure");
      kith.clock.advance(DAY);
    }
    expect(await monitor.unreachableDomains()).toEqual([expect.objectContaining({ domain: "b.example" })]);
    await monitor.recordSuccesses([
      new URL("https://A.example/users/x/inbox"),
      new URL("https://a.example/users/y/inbox"),
      new URL("https://b.example/inbox"),
      new URL("https://c.example:8443/inbox"),
    ]);
    await monitor.recordSuccesses([new URL("https://a.example/inbox")]);
    await monitor.recordSuccesses([]);
    expect(await monitor.unreachableDomains()).toEqual([]);
    const rows = Object.fromEntries((await monitor.deliveries()).map((row) => [row.domain, row]));
    expect(rows).toEqual({
      "a.example": expect.objectContaining({ succeeded: 3, failed: 0, lastSuccessAt: kith.clock.now().toISOString() }),
      "b.example": expect.objectContaining({ succeeded: 1, failed: kith.config.unreachableAfterDays, failureDays: 0, unreachableSince: null }),
      "c.example:8443": expect.objectContaining({ succeeded: 1, failed: 0 }),
    });
  });

  it("sums incoming activities per minute and per domain, and lists connected domains with counts", async () => {
    const monitor = kith.services.federationMonitor;
    await monitor.recordInbox("a.example");
    await monitor.recordInbox("a.example");
    await monitor.recordInbox("b.example");
    kith.clock.advance(60_000);
    await monitor.recordInbox("a.example");
    const metrics = await monitor.inboxMetrics(60, null);
    expect(metrics.total).toBe(4);
    expect(metrics.perMinute.filter((row) => row.received > 0).map((row) => row.received)).toEqual([3, 1]);
    expect(metrics.topDomains).toEqual([
      { domain: "a.example", received: 3 },
      { domain: "b.example", received: 1 },
    ]);
    expect((await monitor.inboxMetrics(5, "b.example")).total).toBe(1);
    const alice = await remoteAccount("alice", "a.example");
    await remoteAccount("bob", "a.example");
    await remoteAccount("carol", "b.example");
    await post(kith, alice, { local: false });
    const connected = await monitor.connectedDomains({ limit: 10, offset: 0 });
    expect(connected.total).toBe(2);
    expect(connected.rows).toEqual([
      { domain: "a.example", accounts: 2, posts: 1, deliveries: null },
      { domain: "b.example", accounts: 1, posts: 0, deliveries: null },
    ]);
  });

  it("hides a limited domain's public posts, on subdomains and ports too, and severs follows on suspension", async () => {
    const viewer = await kith.createUser("viewer");
    const remote = await remoteAccount("dave", "sub.limited.example:8443");
    await post(kith, remote, { local: false, text: "limited" });
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("follows")
      .values({ id: kith.ids.next("follow"), account_id: viewer.account.id, target_account_id: remote, follower_local: true, uri: null, languages: null, created_at: now, updated_at: now })
      .execute();
    const stranger = await kith.createUser("stranger");
    const publicTexts = async (token: string) =>
      ((await (await kith.request("GET", "/api/v1/timelines/public", { token })).json()) as { content: string }[]).map((s) => s.content);
    await kith.services.domainPolicy.createBlock({ domain: "limited.example", severity: "LIMIT" });
    expect(await publicTexts(stranger.token)).not.toContain("<p>limited</p>");
    expect(await publicTexts(viewer.token)).toContain("<p>limited</p>");
    const block = (await kith.services.domainPolicy.listBlocks({ limit: 10 }))[0] ?? expect.unreachable("block");
    await kith.services.domainPolicy.updateBlock(block.id, { severity: "SUSPEND" });
    const follows = await kith.storage.db.selectFrom("follows").select("id").execute();
    expect(follows).toEqual([]);
    const counts = await kith.storage.db.selectFrom("accounts").select(["following_count"]).where("id", "=", viewer.account.id).executeTakeFirstOrThrow();
    expect(Number(counts.following_count)).toBe(0);
  });
});
