import { describe, expect, it } from "vitest";
import { FakeClock } from "../../memory/system-clock.js";
import type { DomainPolicyService } from "../../modules/domain-policy/domain-policy-service.js";
import type { FederationMonitor } from "../../modules/domain-policy/federation-monitor.js";
import { DeliveryGate } from "./delivery-gate.js";
import { InboxAddresses } from "./inbox-addresses.js";

/**
 * What the gate asks of the domain's state per delivery. The whole path
 * (real deliveries, unreachable marks, suspended domains) is in
 * tests/federation/delivery-policy.test.ts.
 */
describe("the delivery gate", () => {
  const HOUR = 3_600_000;

  function gateWith(
    options: { unreachable?: boolean; blocked?: () => boolean; allowPrivateAddress?: boolean; resolves?: (host: string) => string[] } = {},
  ) {
    const clock = new FakeClock();
    const lookedUp: string[] = [];
    const inboxAddresses = new InboxAddresses({
      clock,
      allowPrivateAddress: options.allowPrivateAddress ?? false,
      lookup: async (host) => {
        lookedUp.push(host);
        return options.resolves?.(host) ?? ["93.184.215.14"];
      },
    });
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
    const gate = new DeliveryGate({ domainPolicy, monitor, clock, inboxAddresses });
    let sent = 0;
    const deliver = (outcome: "success" | "failure" = "success", inbox = "https://remote.example/inbox") =>
      gate.around({ type: "outbox", inbox }, async () => {
        sent++;
        if (outcome === "failure") throw new Error("503");
      });
    return { clock, asked, recorded, deliver, sent: () => sent, lookedUp };
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

  describe("inboxes at non-public addresses", () => {
    const PRIVATE = [
      "http://127.0.0.1:6379/",
      "http://169.254.169.254/latest/meta-data/",
      "https://10.1.2.3/inbox",
      "https://[::1]/inbox",
      "https://[::ffff:192.168.1.1]/inbox",
      "https://[fd00::1]:8443/inbox",
    ];

    it("drops a delivery to an inbox whose host is a non-public IP literal, without a lookup, and does not fail it", async () => {
      const { deliver, sent, recorded, lookedUp } = gateWith();
      for (const inbox of PRIVATE) await expect(deliver("success", inbox)).resolves.toBeUndefined();
      expect(sent()).toBe(0);
      expect(recorded).toEqual([]);
      expect(lookedUp).toEqual([]);
      await deliver("success", "https://93.184.215.14/inbox");
      expect(sent()).toBe(1);
    });

    it("drops one whose host name resolves to a non-public address (any of them), and resolves a host once a minute", async () => {
      const { clock, deliver, sent, lookedUp } = gateWith({
        resolves: (host) => (host === "rebound.example" ? ["93.184.215.14", "127.0.0.1"] : ["93.184.215.14"]),
      });
      for (let i = 0; i < 5; i++) await deliver("success", `https://rebound.example/users/u${i}/inbox`);
      expect(sent()).toBe(0);
      for (let i = 0; i < 5; i++) await deliver("success", `https://remote.example/users/u${i}/inbox`);
      expect(sent()).toBe(5);
      expect(lookedUp).toEqual(["rebound.example", "remote.example"]);
      clock.advance(60_000);
      await deliver("success", "https://rebound.example/inbox");
      expect(lookedUp).toEqual(["rebound.example", "remote.example", "rebound.example"]);
      expect(sent()).toBe(5);
    });

    it("lets a name that does not resolve through, to fail as the send's own error", async () => {
      const { deliver, sent } = gateWith({ resolves: () => [] });
      await deliver();
      expect(sent()).toBe(1);
    });

    it("delivers to every address on a test network, without lookups", async () => {
      const { deliver, sent, lookedUp } = gateWith({ allowPrivateAddress: true, resolves: () => ["127.0.0.1"] });
      for (const inbox of PRIVATE) await deliver("success", inbox);
      await deliver();
      expect(sent()).toBe(PRIVATE.length + 1);
      expect(lookedUp).toEqual([]);
    });
  });
});
