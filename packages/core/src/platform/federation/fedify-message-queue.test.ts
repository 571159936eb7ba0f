import type { MessageQueue } from "@fedify/fedify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryQueue } from "../../memory/memory-queue.js";
import { MonotonicIdGenerator } from "../../memory/monotonic-id-generator.js";
import { systemClock } from "../../memory/system-clock.js";
import { systemRandom } from "../../memory/system-random.js";
import { eventually, sleep } from "../../testing/eventually.js";
import { FedifyMessageQueue } from "./fedify-message-queue.js";

/** A stand-in for Fedify's Temporal.Duration (Node has no global Temporal yet); the bridge reads only `total`. */
function duration(ms: number): NonNullable<Parameters<MessageQueue["enqueue"]>[1]>["delay"] {
  return { total: (unit: string) => (unit === "millisecond" ? ms : Number.NaN) } as NonNullable<
    Parameters<MessageQueue["enqueue"]>[1]
  >["delay"];
}

describe("Fedify's MessageQueue on the queue port", () => {
  let queue: MemoryQueue;
  let controller: AbortController;

  beforeEach(async () => {
    queue = new MemoryQueue({ clock: systemClock, ids: new MonotonicIdGenerator(systemClock, systemRandom), pollIntervalMs: 10 });
    controller = new AbortController();
    await queue.start();
  });
  afterEach(async () => {
    controller.abort();
    await queue.stop();
  });

  it("is a MessageQueue that retries natively", () => {
    const bridge: MessageQueue = new FedifyMessageQueue(queue);
    expect(bridge.nativeRetrial).toBe(true);
  });

  it("delivers an enqueued message to the listener, as a job of the federation queue", async () => {
    const bridge = new FedifyMessageQueue(queue);
    const seen: unknown[] = [];
    void bridge.listen(
      (message) => {
        seen.push(message);
      },
      { signal: controller.signal },
    );
    await bridge.enqueue({ type: "outbox", id: "a1", activity: { type: "Create" } });
    await eventually(() => expect(seen).toEqual([{ type: "outbox", id: "a1", activity: { type: "Create" } }]));
    const [job] = await queue.list({ queue: "federation", limit: 5 });
    expect(job).toMatchObject({ status: "finished", payload: { type: "outbox", id: "a1" } });
    expect((await queue.queues()).find((config) => config.name === "federation")).toMatchObject({ concurrency: 16, maxRetries: 9 });
  });

  it("holds a delayed message until its time, shown as scheduled", async () => {
    const bridge = new FedifyMessageQueue(queue);
    const seenAt: number[] = [];
    void bridge.listen(
      () => {
        seenAt.push(Date.now());
      },
      { signal: controller.signal },
    );
    const enqueuedAt = Date.now();
    await bridge.enqueue({ n: 1 }, { delay: duration(300) });
    expect((await queue.counts("federation")).schedule).toBe(1);
    expect(await bridge.getDepth()).toEqual({ queued: 1, ready: 0, delayed: 1 });
    await sleep(120);
    expect(seenAt).toEqual([]);
    await eventually(() => expect(seenAt.length).toBe(1));
    expect((seenAt[0] ?? 0) - enqueuedAt).toBeGreaterThanOrEqual(280);
  });

  it("retries a message whose handler fails, with the port's backoff", async () => {
    const bridge = new FedifyMessageQueue(queue, { backoff: { baseMs: 20, maxMs: 100 } });
    const attempts: unknown[] = [];
    void bridge.listen(
      (message) => {
        attempts.push(message);
        if (attempts.length < 3) throw new Error("remote inbox answered 503");
      },
      { signal: controller.signal },
    );
    await bridge.enqueue({ type: "outbox", id: "flaky" });
    await eventually(async () => expect((await queue.counts("federation")).finished).toBe(1));
    expect(attempts.length).toBe(3);
    const [job] = await queue.list({ queue: "federation", limit: 1 });
    expect(job).toMatchObject({ tries: 3, lastError: "remote inbox answered 503" });
  });

  it("keeps the order of messages with one ordering key, also when enqueued together", async () => {
    const bridge = new FedifyMessageQueue(queue);
    const seen: number[] = [];
    void bridge.listen(
      async (message) => {
        const { n } = message as { n: number };
        await sleep(n === 1 ? 40 : 0);
        seen.push(n);
      },
      { signal: controller.signal },
    );
    await bridge.enqueueMany([{ n: 1 }, { n: 2 }, { n: 3 }], { orderingKey: "https://remote.example/notes/1" });
    await eventually(() => expect(seen).toEqual([1, 2, 3]));
    expect((await queue.list({ queue: "federation", limit: 3 })).every((job) => job.orderingKey === "https://remote.example/notes/1")).toBe(
      true,
    );
  });

  /** Fedify's messages for one send to several inboxes: the same activity and keys, an inbox each. */
  function outboxMessages(inboxes: readonly string[]): Record<string, unknown>[] {
    const shared = { type: "outbox", activity: { type: "Create" }, keys: [], activityId: "https://kith.example/a/1", attempt: 0 };
    return inboxes.map((inbox, n) => ({ ...shared, id: `m${n}`, inbox, sharedInbox: true, headers: {}, started: "2026-01-01T00:00:00Z" }));
  }

  it("queues one send's deliveries as batch jobs for the batch handler, and each message a batch hands back as a job", async () => {
    const batches: unknown[] = [];
    const bridge = new FedifyMessageQueue(queue, {
      batches: {
        size: 2,
        deliver: async (batch) => {
          batches.push(batch);
          await bridge.enqueueEach([{ type: "outbox", id: "handed back", inbox: batch.inboxes[0]?.inbox, attempt: 0 }]);
        },
      },
    });
    const seen: unknown[] = [];
    void bridge.listen(
      (message) => {
        seen.push((message as { id: string }).id);
      },
      { signal: controller.signal },
    );
    await bridge.enqueueMany(outboxMessages(["https://a.example/inbox", "https://b.example/inbox", "https://c.example/inbox"]));
    await eventually(() => expect(seen).toEqual(["handed back", "handed back"]));
    expect(batches.map((batch) => (batch as { inboxes: { inbox: string }[] }).inboxes.map((inbox) => inbox.inbox))).toEqual([
      ["https://a.example/inbox", "https://b.example/inbox"],
      ["https://c.example/inbox"],
    ]);
    await eventually(async () => expect((await queue.counts("federation")).finished).toBe(4));
  });

  it("splits a batch job into a job per inbox in a process without a batch handler", async () => {
    const batching = new FedifyMessageQueue(queue, { batches: { size: 10, deliver: async () => {} } });
    await batching.enqueueMany(outboxMessages(["https://a.example/inbox", "https://b.example/inbox"]));
    const bridge = new FedifyMessageQueue(queue);
    const seen: unknown[] = [];
    void bridge.listen(
      (message) => {
        seen.push((message as { inbox: string }).inbox);
      },
      { signal: controller.signal },
    );
    await eventually(() => expect(seen.sort()).toEqual(["https://a.example/inbox", "https://b.example/inbox"]));
  });

  it("stops listening when the signal aborts, and listen then resolves", async () => {
    const bridge = new FedifyMessageQueue(queue, { backoff: { baseMs: 5_000 } });
    const seen: unknown[] = [];
    const listening = bridge.listen(
      (message) => {
        seen.push(message);
      },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(listening).resolves.toBeUndefined();
    const before = await bridge.getDepth();
    expect(before.queued).toBe(0);
    await bridge.enqueue({ late: true });
    // Nothing listens here any more: the job waits for a process that does, its attempt not counted.
    await eventually(async () => expect((await queue.list({ queue: "federation", limit: 1 }))[0]).toMatchObject({ status: "schedule", tries: 0 }));
    expect(seen).toEqual([]);
  });

  describe("the senders' private keys", () => {
    const privateJwk: JsonWebKey = { kty: "RSA", n: "modulus", e: "AQAB", d: "secret-exponent", p: "p", q: "q" };
    const keyId = "https://kith.example/users/alice#main-key";
    const message = { type: "outbox", id: "d1", inbox: "https://remote.example/inbox", keys: [{ keyId, privateKey: privateJwk }] };

    it("are not stored in the job: its payload keeps the key ids, and the listener gets the keys back", async () => {
      const bridge = new FedifyMessageQueue(queue);
      const asked: string[] = [];
      bridge.resolvePrivateKeysWith(async (id) => {
        asked.push(id);
        return id === keyId ? privateJwk : null;
      });
      const seen: unknown[] = [];
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      await bridge.enqueue(message);
      await eventually(() => expect(seen).toEqual([message]));
      // Once to know it can be left out, once to sign.
      expect(asked).toEqual([keyId, keyId]);
      const [job] = await queue.list({ queue: "federation", limit: 5 });
      expect(job?.payload).toEqual({ ...message, keys: [{ keyId }] });
      expect(JSON.stringify(job?.payload)).not.toContain("secret-exponent");
    });

    it("are left out of a batch's job too, and found again for its deliveries", async () => {
      const delivered: unknown[] = [];
      const bridge = new FedifyMessageQueue(queue, { batches: { size: 10, deliver: async (batch) => void delivered.push(batch) } });
      bridge.resolvePrivateKeysWith(async () => privateJwk);
      void bridge.listen(() => {}, { signal: controller.signal });
      const keys = [{ keyId, privateKey: privateJwk }];
      const shared = { type: "outbox", activity: { type: "Create" }, keys, attempt: 0, activityId: "a", activityType: "Create", baseUrl: "https://kith.example" };
      await bridge.enqueueMany([
        { ...shared, id: "m1", inbox: "https://one.example/inbox", headers: {} },
        { ...shared, id: "m2", inbox: "https://two.example/inbox", headers: {} },
      ]);
      await eventually(() => expect(delivered).toHaveLength(1));
      expect((delivered[0] as { message: { keys: unknown } }).message.keys).toEqual(keys);
      const [job] = await queue.list({ queue: "federation", limit: 5 });
      expect(JSON.stringify(job?.payload)).not.toContain("secret-exponent");
    });

    it("drop a message whose sender's keys are gone by the time it runs", async () => {
      const bridge = new FedifyMessageQueue(queue, { backoff: { baseMs: 20, maxMs: 50 } });
      let keyExists = true;
      bridge.resolvePrivateKeysWith(async () => (keyExists ? privateJwk : null));
      const seen: unknown[] = [];
      await bridge.enqueue(message);
      keyExists = false;
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      await eventually(async () => expect((await queue.counts("federation")).finished).toBe(1));
      expect(seen).toEqual([]);
    });

    it("keep a key that cannot be found again (an account being removed signs its own Delete)", async () => {
      const bridge = new FedifyMessageQueue(queue);
      bridge.resolvePrivateKeysWith(async () => null);
      const seen: unknown[] = [];
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      await bridge.enqueue(message);
      await eventually(() => expect(seen).toEqual([message]));
    });

    it("are waited for while a process cannot read them yet, without the attempt counting", async () => {
      const bridge = new FedifyMessageQueue(queue, { backoff: { baseMs: 20, maxMs: 50 } });
      const seen: unknown[] = [];
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      const job = await queue.enqueue("federation", { ...message, keys: [{ keyId }] }, { maxAttempts: 1 });
      await eventually(async () => expect(await queue.get(job.id)).toMatchObject({ status: "schedule", tries: 0, lastError: null }));
      expect(seen).toEqual([]);
      bridge.resolvePrivateKeysWith(async () => privateJwk);
      // Its one attempt is still its own: it runs, and is done.
      await eventually(() => expect(seen).toEqual([message]), { timeoutMs: 5_000 });
      await eventually(async () => expect(await queue.get(job.id)).toMatchObject({ status: "finished", tries: 1 }));
    });

    it("are made readable by `prepare` before the first message that needs them", async () => {
      let prepared = 0;
      const bridge: FedifyMessageQueue = new FedifyMessageQueue(queue, {
        prepare: async () => {
          prepared += 1;
          bridge.resolvePrivateKeysWith(async () => privateJwk);
        },
      });
      const seen: unknown[] = [];
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      const job = await queue.enqueue("federation", { ...message, keys: [{ keyId }] }, { maxAttempts: 1 });
      await eventually(() => expect(seen).toEqual([message]));
      await eventually(async () => expect(await queue.get(job.id)).toMatchObject({ status: "finished", tries: 1 }));
      await queue.enqueue("federation", { ...message, id: "d2", keys: [{ keyId }] });
      await eventually(() => expect(seen).toHaveLength(2));
      expect(prepared).toBe(1);
    });

    it("stay in messages queued before keys were left out", async () => {
      const bridge = new FedifyMessageQueue(queue);
      const seen: unknown[] = [];
      void bridge.listen((received) => void seen.push(received), { signal: controller.signal });
      await queue.enqueue("federation", message);
      await eventually(() => expect(seen).toEqual([message]));
    });
  });

  it("gives deliveries to single inboxes the delivery schedule's attempts and backoff, and other messages the queue's", async () => {
    const deliveryRetries = { maxAttempts: 17, backoff: { baseMs: 60_000, maxMs: 43_200_000 } };
    const bridge = new FedifyMessageQueue(queue, { deliveryRetries });
    const failing = new Set<string>();
    void bridge.listen(
      (message) => {
        const { id } = message as { id: string };
        if (failing.has(id)) throw new Error(`${id} failed`);
      },
      { signal: controller.signal },
    );
    failing.add("delivery").add("inbox");
    await bridge.enqueue({ type: "outbox", id: "delivery", inbox: "https://remote.example/inbox" });
    await bridge.enqueue({ type: "inbox", id: "inbox" });
    await eventually(async () => expect((await queue.counts("federation")).retries).toBe(2));
    const jobs = await queue.list({ queue: "federation", limit: 5 });
    const byId = (id: string) => jobs.find((job) => (job.payload as { id: string }).id === id);
    expect(byId("delivery")).toMatchObject({ maxAttempts: 17 });
    // Retried after at least half the delivery schedule's first wait: the queue's own first wait is 4 s at most.
    expect(Date.parse(byId("delivery")?.runAt ?? "") - Date.now()).toBeGreaterThan(20_000);
    expect(byId("inbox")).toMatchObject({ maxAttempts: 10 });
    expect(Date.parse(byId("inbox")?.runAt ?? "") - Date.now()).toBeLessThan(5_000);
  });

  it("leaves retries to Fedify when told to: one attempt per job", async () => {
    const bridge = new FedifyMessageQueue(queue, { nativeRetrial: false });
    expect(bridge.nativeRetrial).toBe(false);
    void bridge.listen(
      () => {
        throw new Error("Fedify would have caught this");
      },
      { signal: controller.signal },
    );
    await bridge.enqueue({ n: 1 });
    await eventually(async () => expect((await queue.counts("federation")).failed).toBe(1));
  });
});

describe("the bridge under Fedify", () => {
  it("is what Fedify listens on when its queue starts, until the signal aborts", async () => {
    const { createFederation, MemoryKvStore } = await import("@fedify/fedify");
    const queue = new MemoryQueue({ clock: systemClock, ids: new MonotonicIdGenerator(systemClock, systemRandom) });
    const bridge = new FedifyMessageQueue(queue);
    const federation = createFederation<void>({ kv: new MemoryKvStore(), queue: bridge, manuallyStartQueue: true });
    const controller = new AbortController();
    const running = federation.startQueue(undefined, { signal: controller.signal });
    await eventually(async () => expect((await queue.queues()).map((config) => config.name)).toContain("federation"));
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });
});
