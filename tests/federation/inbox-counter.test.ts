import { type TestKith, eventually, withStorageFaults } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FederationMonitor } from "../../packages/core/src/modules/domain-policy/federation-monitor.js";
import { StatementCounter, countedStorage } from "../support/statement-counter.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * The inbox metrics' counter: incoming activities are counted in memory and
 * written together (one statement a second instead of one an activity);
 * the metrics read what was counted up to the moment they are asked.
 */
describeOnEngines("the inbox counter", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(async () => {
    await kith.close();
  });

  const stored = () =>
    kith.storage.db.selectFrom("federation_inbox_minutes").select(["domain", "received"]).orderBy("domain").execute();

  it("writes the counts of many activities in one statement", async () => {
    const counter = new StatementCounter();
    const monitor = new FederationMonitor({ storage: countedStorage(kith.storage, counter), clock: kith.clock, config: kith.config });
    for (let i = 0; i < 5; i++) await monitor.recordInbox("a.example");
    await monitor.recordInbox("B.example");
    await monitor.recordInbox("b.example");
    expect(counter.count).toBe(0);
    expect(await stored()).toEqual([]);
    await monitor.flushInbox();
    // Each write also clears the unreachable marks of the domains heard from; the first also prunes minutes older
    // than the longest window.
    expect(counter.count).toBe(3);
    expect(await stored()).toEqual([
      { domain: "a.example", received: 5 },
      { domain: "b.example", received: 2 },
    ]);
    await monitor.recordInbox("a.example");
    await monitor.flushInbox();
    expect(counter.count).toBe(5);
    expect(await stored()).toEqual([
      { domain: "a.example", received: 6 },
      { domain: "b.example", received: 2 },
    ]);
  });

  it("clears the unreachable mark of a domain that sends activities again", async () => {
    const monitor = new FederationMonitor({ storage: kith.storage, clock: kith.clock, config: kith.config });
    for (let day = 0; day < kith.config.unreachableAfterDays; day++) {
      await monitor.recordDelivery(new URL("https://a.example/inbox"), "failure");
      kith.clock.advance(24 * 3_600_000);
    }
    await monitor.recordDelivery(new URL("https://a.example/inbox"), "failure");
    expect(await monitor.skipsDeliveryTo("a.example")).toBe(true);
    // Another domain's activity leaves the mark as it is.
    await monitor.recordInbox("b.example");
    await monitor.flushInbox();
    expect(await monitor.unreachableDomains()).toEqual([expect.objectContaining({ domain: "a.example" })]);
    // Deliveries go at once, before the mark is cleared in the database...
    await monitor.recordInbox("A.example");
    expect(await monitor.skipsDeliveryTo("a.example")).toBe(false);
    expect(await monitor.unreachableDomains()).toEqual([expect.objectContaining({ domain: "a.example" })]);
    // ...and stay free once the counts are written.
    await monitor.flushInbox();
    expect(await monitor.unreachableDomains()).toEqual([]);
    expect(await monitor.skipsDeliveryTo("a.example")).toBe(false);
  });

  it("writes the counts within a second without being asked", async () => {
    const monitor = new FederationMonitor({ storage: kith.storage, clock: kith.clock, config: kith.config });
    await monitor.recordInbox("a.example");
    await eventually(async () => expect(await stored()).toEqual([{ domain: "a.example", received: 1 }]));
  });

  it("keeps the counts when writing them fails, and writes them with the next ones", async () => {
    const { storage, faults } = withStorageFaults(kith.storage);
    const monitor = new FederationMonitor({ storage, clock: kith.clock, config: kith.config });
    await monitor.recordInbox("a.example");
    await monitor.recordInbox("a.example");
    faults.break();
    await monitor.flushInbox();
    faults.heal();
    expect(await stored()).toEqual([]);
    await monitor.recordInbox("a.example");
    expect((await monitor.inboxMetrics(5, "a.example")).total).toBe(3);
    expect(await stored()).toEqual([{ domain: "a.example", received: 3 }]);
  });
});
