import { randomBytes } from "node:crypto";
import type { PubSub } from "@kith/core";
import { describePubSubContract, eventually } from "@kith/core/testing";
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import { describeIfRedis, redisUrl } from "../../../tests/support/real-servers.js";
import { RedisPubSub } from "./index.js";

function serverUrl(): string {
  const url = redisUrl();
  if (!url) throw new Error("No test Redis server: guard the suite with describeIfRedis");
  return url;
}

/** A channel prefix of its own for every test: Redis channels are server-wide, and tests run side by side. */
function freshPrefix(): string {
  return `kt${randomBytes(5).toString("hex")}`;
}

describeIfRedis("redis pubsub", () => {
  describePubSubContract("redis", async () => {
    const prefix = freshPrefix();
    const instances: PubSub[] = [new RedisPubSub({ url: serverUrl(), prefix })];
    return {
      pubsub: instances[0] as PubSub,
      async connectPeer() {
        const peer = new RedisPubSub({ url: serverUrl(), prefix });
        instances.push(peer);
        return peer;
      },
      async close() {
        for (const instance of instances) await instance.close();
      },
    };
  });
});

describeIfRedis("redis pubsub: beyond the contract", () => {
  const opened: PubSub[] = [];

  afterEach(async () => {
    for (const pubsub of opened.splice(0)) await pubsub.close();
  });

  function open(prefix: string): RedisPubSub {
    const pubsub = new RedisPubSub({ url: serverUrl(), prefix });
    opened.push(pubsub);
    return pubsub;
  }

  it("keeps instances with different prefixes apart, as two Kith installations sharing one Redis", async () => {
    const ours = open(freshPrefix());
    const theirs = open(freshPrefix());
    const ourMessages: unknown[] = [];
    const theirMessages: unknown[] = [];
    await ours.subscribe("timeline:public", (message) => ourMessages.push(message));
    await theirs.subscribe("timeline:public", (message) => theirMessages.push(message));
    await theirs.publish("timeline:public", { from: "theirs" });
    await ours.publish("timeline:public", { from: "ours" });
    await eventually(() => expect(ourMessages).toEqual([{ from: "ours" }]));
    await eventually(() => expect(theirMessages).toEqual([{ from: "theirs" }]));
  });

  it("still delivers to the other listeners when one throws", async () => {
    const pubsub = open(freshPrefix());
    const received: unknown[] = [];
    await pubsub.subscribe("fragile", () => {
      throw new Error("listener bug");
    });
    await pubsub.subscribe("fragile", (message) => received.push(message));
    await pubsub.publish("fragile", { n: 1 });
    await pubsub.publish("fragile", { n: 2 });
    await eventually(() => expect(received).toEqual([{ n: 1 }, { n: 2 }]));
  });

  it("subscribes each channel once at Redis however many listeners it has, and unsubscribes with the last", async () => {
    const prefix = freshPrefix();
    const pubsub = open(prefix);
    const admin = new Redis(serverUrl(), { connectionName: "kith-test-admin" });
    // How many connections Redis has subscribed to the channel.
    const count = async (): Promise<number> => Number(((await admin.pubsub("NUMSUB", `${prefix}:pubsub:busy`)) as [string, number])[1]);
    const unsubscribers = await Promise.all([1, 2, 3].map(() => pubsub.subscribe("busy", () => {})));
    expect(await count()).toBe(1);
    await unsubscribers[0]?.();
    await unsubscribers[1]?.();
    expect(await count()).toBe(1);
    await unsubscribers[2]?.();
    expect(await count()).toBe(0);
    await admin.quit();
  });

  it("opens no connection until it is used, so closing an unused one is immediate", async () => {
    const prefix = freshPrefix();
    const admin = new Redis(serverUrl(), { connectionName: "kith-test-admin" });
    const connections = async (): Promise<number> =>
      String(await admin.client("LIST"))
        .split("\n")
        .filter((line) => line.includes(` name=${prefix}:pubsub:`)).length;
    const unused = new RedisPubSub({ url: serverUrl(), prefix });
    expect(await connections()).toBe(0);
    await unused.close();
    const used = open(prefix);
    await used.subscribe("x", () => {});
    await used.publish("x", 1);
    expect(await connections()).toBe(2);
    await admin.quit();
  });

  it("refuses to publish what JSON cannot carry, and anything once closed", async () => {
    const pubsub = open(freshPrefix());
    await expect(pubsub.publish("x", undefined)).rejects.toThrow(TypeError);
    await pubsub.close();
    await expect(pubsub.publish("x", { n: 1 })).rejects.toThrow(/closed/);
    await expect(pubsub.subscribe("x", () => {})).rejects.toThrow(/closed/);
  });
});
