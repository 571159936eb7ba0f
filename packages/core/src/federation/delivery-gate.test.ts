import { describe, expect, it } from "vitest";
import { FakeClock } from "../memory/system-clock.js";
import type { DomainPolicyService } from "../services/domain-policy/domain-policy-service.js";
import type { FederationMonitor } from "../services/federation-monitoring/federation-monitor.js";
import { DeliveryGate } from "./delivery-gate.js";

/**
 * What the gate asks of the domain's state per delivery. The whole path
 * (real deliveries, unreachable marks, suspended domains) is in
 * tests/federation/delivery-policy.test.ts.
 */
describe("the delivery gate", () => {
  const HOUR = 3_600_000;

  function gateWith(options: { unreachable?: boolean; blocked?: () => boolean } = {}) {
    const clock = new FakeClock();
    const asked: string[] = [];
    const recorded: string[] = [];
    const monitor = {
      skipsDeliveryTo: async (host: string) => {
        asked.push(host);
        return options.unreachable ?? false;
      },
      recordDelivery: async (inbox: URL, outcome: string) => {
        recorded.push(`${inbox.host} ${outcome}`);
      },
    } as unknown as FederationMonitor;
    const domainPolicy = {
      policyFor: async () => ({ blocked: options.blocked?.() ?? false, reason: "suspended" }),
    } as unknown as DomainPolicyService;
    const gate = new DeliveryGate({ domainPolicy, monitor, clock });
    let sent = 0;
    const deliver = (outcome: "success" | "failure" = "success") =>
      gate.around({ type: "outbox", inbox: "https://remote.example/inbox" }, async () => {
        sent++;
        if (outcome === "failure") throw new Error("503");
      });
    return { clock, asked, recorded, deliver, sent: () => sent };
  }

  it("reads a domain's delivery state until a delivery there succeeds, then not for an hour after the last success", async () => {
    const { clock, asked, recorded, deliver, sent } = gateWith();
    await deliver();
    await deliver();
    clock.advance(HOUR - 1);
    await deliver();
    expect(asked).toHaveLength(1);
    clock.advance(HOUR);
    await deliver();
    expect(asked).toHaveLength(2);
    expect(sent()).toBe(4);
    expect(recorded).toEqual(Array(4).fill("remote.example success"));
  });

  it("reads it again after a failure", async () => {
    const { asked, recorded, deliver } = gateWith();
    await deliver();
    await expect(deliver("failure")).rejects.toThrow("503");
    // The failed attempt went on the earlier success; the one after it asks again.
    expect(asked).toHaveLength(1);
    await deliver();
    expect(asked).toHaveLength(2);
    expect(recorded).toEqual(["remote.example success", "remote.example failure", "remote.example success"]);
  });

  it("skips an unreachable domain, and drops a blocked one even right after a success", async () => {
    const unreachable = gateWith({ unreachable: true });
    await unreachable.deliver();
    expect(unreachable.sent()).toBe(0);
    expect(unreachable.recorded).toEqual([]);

    let blocked = false;
    const suspended = gateWith({ blocked: () => blocked });
    await suspended.deliver();
    blocked = true;
    await suspended.deliver();
    expect(suspended.sent()).toBe(1);
  });
});
