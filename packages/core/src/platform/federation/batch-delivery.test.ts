import type { KvKey } from "@fedify/fedify";
import { beforeAll, describe, expect, it } from "vitest";
import { BatchDelivery } from "./batch-delivery.js";
import { type OutboxBatch, type OutboxMessage, batchOutboxMessages } from "./outbox-batch.js";

/**
 * One batch job with stand-ins for the gate, the key-value store and the
 * HTTP client. The whole path against real servers is in
 * tests/federation/batch-delivery.test.ts.
 */
describe("a batch delivery", () => {
  let rsaJwk: JsonWebKey;
  let ed25519Jwk: JsonWebKey;

  beforeAll(async () => {
    const rsa = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    rsaJwk = await crypto.subtle.exportKey("jwk", rsa.privateKey);
    const ed25519 = (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"])) as CryptoKeyPair;
    ed25519Jwk = await crypto.subtle.exportKey("jwk", ed25519.privateKey);
  });

  function batchTo(inboxes: readonly string[], keys?: OutboxMessage["keys"]): { batch: OutboxBatch; messages: OutboxMessage[] } {
    const shared = {
      type: "outbox" as const,
      baseUrl: "https://kith.example",
      keys: keys ?? [
        { keyId: "https://kith.example/users/alice#ed25519-key", privateKey: ed25519Jwk },
        { keyId: "https://kith.example/users/alice#main-key", privateKey: rsaJwk },
      ],
      activity: { type: "Create", id: "https://kith.example/users/alice/statuses/1/activity" },
      activityId: "https://kith.example/users/alice/statuses/1/activity",
      activityType: "https://www.w3.org/ns/activitystreams#Create",
      attempt: 0,
      started: "2026-01-01T00:00:00.000Z",
      traceContext: {},
    };
    const messages = inboxes.map((inbox, n) => ({
      ...shared,
      id: `00000000-0000-4000-8000-00000000000${n}` as OutboxMessage["id"],
      inbox,
      sharedInbox: true,
      actorIds: [`${new URL(inbox).origin}/users/a`],
      headers: {},
    }));
    const [batch] = batchOutboxMessages(messages, 100) ?? [];
    if (!batch) throw new Error("not batched");
    return { batch, messages };
  }

  function deliveryWith(options: {
    answer?: (url: URL) => number | Error;
    admits?: (url: URL) => boolean;
    specs?: Record<string, string>;
    rememberFails?: boolean;
  }) {
    const specs = new Map<string, unknown>(Object.entries(options.specs ?? {}).map(([origin, spec]) => [`spec ${origin}`, spec]));
    const keyOf = (key: KvKey) => `spec ${key.at(-1)}`;
    const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
    const recorded: string[][] = [];
    const handedBack: OutboxMessage[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const delivery = new BatchDelivery({
      gate: {
        admits: async (inbox) => options.admits?.(inbox) ?? true,
        recordSuccesses: async (inboxes) => {
          recorded.push(inboxes.map((inbox) => inbox.href));
        },
      },
      kv: {
        get: async <T>(key: KvKey) => specs.get(keyOf(key)) as T | undefined,
        set: async (key: KvKey, value: unknown) => {
          if (options.rememberFails) throw new Error("database is locked");
          specs.set(keyOf(key), value);
        },
      },
      sender: {
        post: async (url, headers, body) => {
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          sent.push({ url: url.href, headers: { ...headers }, body: new TextDecoder().decode(body) });
          const answer = options.answer?.(url) ?? 202;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
      handBack: async (messages) => {
        handedBack.push([...messages]);
      },
      userAgent: "Kith/test",
      concurrency: 2,
    });
    return { delivery, sent, recorded, handedBack, specs, mostInFlight: () => mostInFlight };
  }

  const INBOXES = ["https://a.example/inbox", "https://b.example/inbox", "https://c.example/inbox", "https://d.example/inbox"];

  it("sends each inbox the activity, signed, a few at a time, and records the successes in one call", async () => {
    const { batch } = batchTo(INBOXES);
    const { delivery, sent, recorded, handedBack, specs, mostInFlight } = deliveryWith({});
    await delivery.deliver(batch);
    expect(sent.map((request) => request.url).sort()).toEqual(INBOXES);
    expect(mostInFlight()).toBe(2);
    const [first] = sent;
    expect(JSON.parse(first?.body ?? "")).toEqual(batch.message.activity);
    expect(first?.headers).toMatchObject({ "content-type": "application/activity+json", "user-agent": "Kith/test" });
    // Signed with the RSA key (not the Ed25519 one listed first), in RFC 9421 with a server not known yet.
    expect(first?.headers["signature-input"]).toContain('keyid="https://kith.example/users/alice#main-key"');
    expect(recorded).toHaveLength(1);
    expect([...(recorded[0] ?? [])].sort()).toEqual(INBOXES);
    expect(handedBack).toEqual([]);
    expect(specs.get("spec https://a.example")).toBe("rfc9421");
  });

  it("hands back, as Fedify's own messages, the deliveries answered with an error or not at all; drops what the gate refuses", async () => {
    const { batch, messages } = batchTo(INBOXES);
    const { delivery, sent, recorded, handedBack, specs } = deliveryWith({
      admits: (url) => url.host !== "d.example",
      answer: (url) => (url.host === "b.example" ? 500 : url.host === "c.example" ? new Error("ECONNREFUSED") : 202),
    });
    await delivery.deliver(batch);
    expect(sent.map((request) => request.url).sort()).toEqual(INBOXES.slice(0, 3));
    expect(recorded).toEqual([["https://a.example/inbox"]]);
    expect(handedBack.flat().sort((x, y) => x.inbox.localeCompare(y.inbox))).toEqual(messages.slice(1, 3));
    // Only an accepted form is remembered.
    expect([...specs.keys()]).toEqual(["spec https://a.example"]);
  });

  it("counts a delivery the server accepted as done even when the form it accepted cannot be written", async () => {
    const { batch } = batchTo(INBOXES.slice(0, 2));
    const { delivery, sent, recorded, handedBack } = deliveryWith({ rememberFails: true });
    await delivery.deliver(batch);
    expect(sent).toHaveLength(2);
    expect(recorded.flat().sort()).toEqual(INBOXES.slice(0, 2));
    expect(handedBack).toEqual([]);
  });

  it("signs in the form remembered for the server", async () => {
    const { batch } = batchTo(INBOXES.slice(0, 2));
    const { delivery, sent } = deliveryWith({ specs: { "https://a.example": "draft-cavage-http-signatures-12" } });
    await delivery.deliver(batch);
    const byUrl = Object.fromEntries(sent.map((request) => [request.url, request.headers]));
    expect(byUrl["https://a.example/inbox"]?.signature).toContain('algorithm="rsa-sha256"');
    expect(byUrl["https://a.example/inbox"]?.digest).toMatch(/^SHA-256=/);
    expect(byUrl["https://b.example/inbox"]?.["content-digest"]).toMatch(/^sha-256=/);
  });

  it("leaves every delivery to Fedify when the sender has no RSA key", async () => {
    const { batch, messages } = batchTo(INBOXES.slice(0, 2), [
      { keyId: "https://kith.example/users/alice#ed25519-key", privateKey: ed25519Jwk },
    ]);
    const { delivery, sent, handedBack } = deliveryWith({});
    await delivery.deliver(batch);
    expect(sent).toEqual([]);
    expect(handedBack).toEqual([messages]);
  });
});
