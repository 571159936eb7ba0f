import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PubSub } from "../ports/pubsub.js";
import { eventually } from "./eventually.js";

/** What a contract run needs from an adapter. */
export interface PubSubUnderTest {
  readonly pubsub: PubSub;
  /**
   * Another instance on the same backend, as a second server process would
   * open it; the cross-process cases run only for adapters that give one.
   */
  connectPeer?(): Promise<PubSub>;
  /** Disposes of what the factory made (peers included). */
  close(): Promise<void>;
}

/** Collects what a listener receives. */
function inbox(): { readonly messages: unknown[]; readonly listener: (message: unknown) => void } {
  const messages: unknown[] = [];
  return { messages, listener: (message) => messages.push(message) };
}

/**
 * The pubsub port's contract. Every adapter runs it: `factory` returns a
 * pubsub whose channels no other run sees.
 *
 * Delivery may be asynchronous, so the cases wait for messages; a case that
 * checks something was NOT delivered publishes a marker afterwards on a
 * channel that is listened to, and checks once the marker has arrived (one
 * publisher's messages arrive in order).
 */
export function describePubSubContract(name: string, factory: () => Promise<PubSubUnderTest>): void {
  describe(`pubsub contract: ${name}`, () => {
    let subject: PubSubUnderTest;
    let pubsub: PubSub;

    beforeEach(async () => {
      subject = await factory();
      pubsub = subject.pubsub;
    });

    afterEach(async () => {
      await subject.close();
    });

    it("delivers a message to every subscriber of its channel", async () => {
      const first = inbox();
      const second = inbox();
      await pubsub.subscribe("timeline:public", first.listener);
      await pubsub.subscribe("timeline:public", second.listener);
      await pubsub.publish("timeline:public", { event: "update", id: "st_1" });
      await eventually(() => expect(first.messages).toEqual([{ event: "update", id: "st_1" }]));
      await eventually(() => expect(second.messages).toEqual([{ event: "update", id: "st_1" }]));
    });

    it("delivers nothing from other channels, including ones whose names look like patterns or prefixes", async () => {
      const watched = inbox();
      await pubsub.subscribe("timeline:hashtag:a*", watched.listener);
      for (const other of [
        "timeline:hashtag:ab",
        "timeline:hashtag:a",
        "timeline:hashtag",
        "timeline:hashtag:a*:x",
        "Timeline:hashtag:a*",
      ]) {
        await pubsub.publish(other, { wrong: other });
      }
      await pubsub.publish("timeline:hashtag:a*", { marker: true });
      await eventually(() => expect(watched.messages).toContainEqual({ marker: true }));
      expect(watched.messages).toEqual([{ marker: true }]);
    });

    it("publishing to a channel nobody listens on is no error", async () => {
      await expect(pubsub.publish("nobody:listens", { n: 1 })).resolves.toBeUndefined();
    });

    it("stops delivering to a listener once it unsubscribes, and keeps delivering to the others", async () => {
      const leaving = inbox();
      const staying = inbox();
      const unsubscribe = await pubsub.subscribe("user:us_1", leaving.listener);
      await pubsub.subscribe("user:us_1", staying.listener);
      await pubsub.publish("user:us_1", { n: 1 });
      await eventually(() => expect(leaving.messages).toEqual([{ n: 1 }]));
      await unsubscribe();
      await pubsub.publish("user:us_1", { n: 2 });
      await eventually(() => expect(staying.messages).toEqual([{ n: 1 }, { n: 2 }]));
      expect(leaving.messages).toEqual([{ n: 1 }]);
      // Unsubscribing again changes nothing.
      await expect(unsubscribe()).resolves.toBeUndefined();
      await pubsub.publish("user:us_1", { n: 3 });
      await eventually(() => expect(staying.messages).toHaveLength(3));
      expect(leaving.messages).toEqual([{ n: 1 }]);
    });

    it("delivers again after the last listener left and a new one subscribed", async () => {
      const before = inbox();
      const unsubscribe = await pubsub.subscribe("list:li_1", before.listener);
      await unsubscribe();
      const after = inbox();
      await pubsub.subscribe("list:li_1", after.listener);
      await pubsub.publish("list:li_1", { n: 1 });
      await eventually(() => expect(after.messages).toEqual([{ n: 1 }]));
      expect(before.messages).toEqual([]);
    });

    it("round-trips messages as JSON: nested values, unicode, numbers, null; dates become strings; undefined fields vanish", async () => {
      const received = inbox();
      await pubsub.subscribe("json", received.listener);
      const message = {
        text: 'héllo 👋 <b>&amp;</b> "quoted" \n new line \u0000 nul',
        numbers: [0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER],
        nested: { deep: { deeper: [{ a: null }, true, false, ""] } },
        at: new Date("2026-01-02T03:04:05.678Z"),
        missing: undefined,
      };
      await pubsub.publish("json", message);
      await pubsub.publish("json", "a bare string");
      await pubsub.publish("json", 42);
      await pubsub.publish("json", null);
      await pubsub.publish("json", [1, "two", { three: 3 }]);
      await eventually(() => expect(received.messages).toHaveLength(5));
      expect(received.messages).toEqual([
        {
          text: message.text,
          numbers: message.numbers,
          nested: message.nested,
          at: "2026-01-02T03:04:05.678Z",
        },
        "a bare string",
        42,
        null,
        [1, "two", { three: 3 }],
      ]);
      expect(Object.keys(received.messages[0] as object)).not.toContain("missing");
    });

    it("gives every subscriber its own copy, sharing nothing with the publisher or each other", async () => {
      const first = inbox();
      const second = inbox();
      await pubsub.subscribe("copies", (message) => {
        first.listener(message);
        (message as { list: number[] }).list.push(99);
      });
      await pubsub.subscribe("copies", second.listener);
      const published = { list: [1] };
      await pubsub.publish("copies", published);
      published.list.push(2);
      await eventually(() => expect(second.messages).toHaveLength(1));
      await eventually(() => expect(first.messages).toHaveLength(1));
      expect(second.messages[0]).toEqual({ list: [1] });
      expect(first.messages[0]).not.toBe(second.messages[0]);
    });

    it("keeps one publisher's messages in order", async () => {
      const received = inbox();
      await pubsub.subscribe("ordered", received.listener);
      const count = 200;
      // Not awaited one by one: the order must hold for messages in flight together too.
      await Promise.all(Array.from({ length: count }, (_, n) => pubsub.publish("ordered", { n })));
      await eventually(() => expect(received.messages).toHaveLength(count));
      expect(received.messages.map((message) => (message as { n: number }).n)).toEqual(Array.from({ length: count }, (_, n) => n));
    });

    it("delivers nothing once closed, and closing again is no error", async () => {
      const received = inbox();
      await pubsub.subscribe("closing", received.listener);
      await pubsub.publish("closing", { n: 1 });
      await eventually(() => expect(received.messages).toEqual([{ n: 1 }]));
      await pubsub.close();
      await pubsub.publish("closing", { n: 2 }).catch(() => undefined);
      await expect(pubsub.close()).resolves.toBeUndefined();
      expect(received.messages).toEqual([{ n: 1 }]);
    });

    describe("across processes", () => {
      it("delivers each instance's messages to the other's subscribers, and to its own", async (context) => {
        if (!subject.connectPeer) return context.skip();
        const peer = await subject.connectPeer();
        const here = inbox();
        const there = inbox();
        await pubsub.subscribe("timeline:local", here.listener);
        await peer.subscribe("timeline:local", there.listener);
        await pubsub.publish("timeline:local", { from: "here" });
        await peer.publish("timeline:local", { from: "there" });
        await eventually(() => expect(there.messages).toHaveLength(2));
        await eventually(() => expect(here.messages).toHaveLength(2));
        expect(there.messages).toContainEqual({ from: "here" });
        expect(here.messages).toContainEqual({ from: "there" });
      });

      it("keeps one publisher's order as another instance receives it", async (context) => {
        if (!subject.connectPeer) return context.skip();
        const peer = await subject.connectPeer();
        const there = inbox();
        await peer.subscribe("ordered", there.listener);
        await Promise.all(Array.from({ length: 100 }, (_, n) => pubsub.publish("ordered", { n })));
        await eventually(() => expect(there.messages).toHaveLength(100));
        expect(there.messages.map((message) => (message as { n: number }).n)).toEqual(Array.from({ length: 100 }, (_, n) => n));
      });

      it("stops another instance's delivery when its listener unsubscribes, and when it closes", async (context) => {
        if (!subject.connectPeer) return context.skip();
        const peer = await subject.connectPeer();
        const leaving = inbox();
        const marker = inbox();
        const unsubscribe = await peer.subscribe("user:us_2", leaving.listener);
        await pubsub.subscribe("user:us_2", marker.listener);
        await unsubscribe();
        await pubsub.publish("user:us_2", { n: 1 });
        await eventually(() => expect(marker.messages).toEqual([{ n: 1 }]));
        const closing = inbox();
        await peer.subscribe("user:us_2", closing.listener);
        await peer.close();
        await pubsub.publish("user:us_2", { n: 2 });
        await eventually(() => expect(marker.messages).toHaveLength(2));
        // The peer's own connection is gone, so nothing can still be in flight to it.
        expect(leaving.messages).toEqual([]);
        expect(closing.messages).toEqual([]);
      });
    });
  });
}
