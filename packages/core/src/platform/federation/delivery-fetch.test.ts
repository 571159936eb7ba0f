import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryKvStore, createFederation, generateCryptoKeyPair } from "@fedify/fedify";
import { Follow, Person } from "@fedify/fedify/vocab";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../memory/system-clock.js";
import type { DomainPolicyService } from "../../modules/domain-policy/domain-policy-service.js";
import type { FederationMonitor } from "../../modules/domain-policy/federation-monitor.js";
import { DeliveryGate } from "./delivery-gate.js";
import { withDeliveryFetch } from "./delivery-fetch.js";
import { InboxAddresses } from "./inbox-addresses.js";

/**
 * Deliveries, as Fedify sends them (its own signing, double-knock and
 * redirect handling, over the global fetch), under the delivery gate with
 * private addresses refused: a hostile peer on loopback tries to draw a
 * signed POST onto a loopback address, and a listener there records
 * whether one arrived. The peer's own first hop is let through by one
 * exactly trusted address (127.0.0.2), or by a resolver that answers a
 * public address when the gate asks and 127.0.0.1 when the connection is made.
 */

interface Listener {
  readonly server: Server;
  readonly port: number;
  readonly received: string[];
}

function listen(host: string, answer: (path: string) => { status: number; headers?: Record<string, string> }): Promise<Listener> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    const { status, headers } = answer(req.url ?? "/");
    res.writeHead(status, headers).end();
  });
  return new Promise((resolve) =>
    server.listen(0, host, () => resolve({ server, port: (server.address() as AddressInfo).port, received })),
  );
}

const close = (listener: Listener): Promise<void> => new Promise((done) => listener.server.close(() => done()));

const PUBLIC_ADDRESS = "93.184.215.14";

describe("deliveries and private addresses", () => {
  let loopback: Listener;
  let hostile: Listener;

  beforeAll(async () => {
    loopback = await listen("127.0.0.1", () => ({ status: 202 }));
    // Answers every POST with a redirect to the loopback listener.
    hostile = await listen("127.0.0.2", () => ({ status: 307, headers: { location: `http://127.0.0.1:${loopback.port}/inbox` } }));
  });
  beforeEach(() => {
    loopback.received.length = 0;
    hostile.received.length = 0;
  });
  afterAll(async () => {
    await close(loopback);
    await close(hostile);
  });

  /** Fedify, sending as a local actor, behind a delivery gate whose address rule is `addresses`. */
  async function senderBehind(addresses: InboxAddresses) {
    const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
    const federation = createFederation<void>({ kv: new MemoryKvStore() });
    federation
      .setActorDispatcher("/users/{identifier}", (ctx, identifier) => new Person({ id: ctx.getActorUri(identifier) }))
      .setKeyPairsDispatcher(() => [keys]);
    const domainPolicy = { policyFor: async () => ({ blocked: false }) } as unknown as DomainPolicyService;
    const monitor = { skipsDeliveryTo: async () => false, recordDelivery: async () => {} } as unknown as FederationMonitor;
    const gate = new DeliveryGate({ domainPolicy, monitor, clock: new FakeClock(), inboxAddresses: addresses });
    const ctx = gate.gate(federation.createContext(new URL("https://kith.test"), undefined));
    return async (inbox: URL): Promise<unknown> => {
      const follow = new Follow({
        id: new URL("https://kith.test/follows/1"),
        actor: ctx.getActorUri("alice"),
        object: new URL("/users/bob", inbox),
      });
      try {
        await ctx.sendActivity({ identifier: "alice" }, { id: new URL("/users/bob", inbox), inboxId: inbox }, follow, { immediate: true });
        return null;
      } catch (error) {
        return error;
      }
    };
  }

  it("follows no redirect from an inbox, to a private address or any other", async () => {
    const send = await senderBehind(new InboxAddresses({ clock: new FakeClock(), trustedAddresses: ["127.0.0.2"] }));
    const error = await send(new URL(`http://127.0.0.2:${hostile.port}/inbox`));
    expect(hostile.received).toContain("POST /inbox");
    expect(loopback.received).toEqual([]);
    expect(String(error)).toMatch(/redirect/);
  });

  it("checks the address when it connects: a name that pointed to a public address for the gate reaches no loopback address", async () => {
    const answers: string[] = [];
    const lookup = async (host: string): Promise<string[]> => {
      const address = answers.length === 0 ? PUBLIC_ADDRESS : "127.0.0.1";
      answers.push(`${host} ${address}`);
      return [address];
    };
    const addresses = new InboxAddresses({ clock: new FakeClock(), lookup });
    const send = await senderBehind(addresses);
    // localhost is 127.0.0.1 to the system's resolver too: a connection made without the check reaches the listener.
    const error = await send(new URL(`http://localhost:${loopback.port}/inbox`));
    expect(loopback.received).toEqual([]);
    expect(answers).toEqual([`localhost ${PUBLIC_ADDRESS}`, "localhost 127.0.0.1"]);
    expect(String(error)).toMatch(/non-public address/);
  });

  it("still delivers to an admitted address (the case the refusals are measured against)", async () => {
    const send = await senderBehind(new InboxAddresses({ clock: new FakeClock(), trustedAddresses: ["127.0.0.1"] }));
    expect(await send(new URL(`http://127.0.0.1:${loopback.port}/users/bob/inbox`))).toBeNull();
    expect(loopback.received).toEqual(["POST /users/bob/inbox"]);
  });
});

describe("the global fetch inside deliveries", () => {
  it("serves the calls made inside a delivery, and leaves every other call to the fetch it found, also one put there later", async () => {
    const original = globalThis.fetch;
    const calls: string[] = [];
    const recorder = (name: string) => async (input: RequestInfo | URL) => {
      calls.push(`${name} ${input instanceof Request ? input.url : String(input)}`);
      return new Response(null, { status: 204 });
    };
    try {
      globalThis.fetch = recorder("first") as typeof fetch;
      const delivered = recorder("delivery");
      await withDeliveryFetch((request) => delivered(request), () => fetch("https://a.example/inbox"));
      await fetch("https://b.example/");
      // Something replaces the global fetch: the next delivery wraps the new one.
      globalThis.fetch = recorder("second") as typeof fetch;
      await withDeliveryFetch((request) => delivered(request), async () => {
        await Promise.resolve();
        return fetch("https://c.example/inbox");
      });
      await fetch("https://d.example/");
      expect(calls).toEqual(["delivery https://a.example/inbox", "first https://b.example/", "delivery https://c.example/inbox", "second https://d.example/"]);
    } finally {
      globalThis.fetch = original;
    }
  });
});
