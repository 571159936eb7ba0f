import type { Storage } from "@kith/core";
import { FakeClock } from "@kith/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { SqlKvStore } from "../../packages/core/src/platform/federation/sql-kv-store.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";

/** What Fedify passes as a TTL: a duration that can tell its length. */
const seconds = (n: number) => ({ total: () => n * 1000 }) as never;

describeOnEngines("SqlKvStore", (engine) => {
  let database: EngineDatabase;
  let storage: Storage;
  let clock: FakeClock;
  let kv: SqlKvStore;
  beforeEach(async () => {
    database = await engine.database();
    storage = database.open();
    clock = new FakeClock();
    kv = new SqlKvStore(storage, clock);
  });
  afterEach(async () => {
    await storage.close();
    await database.drop();
  });

  it("sets, gets, overwrites and deletes JSON values", async () => {
    expect(await kv.get(["a", "b"])).toBeUndefined();
    await kv.set(["a", "b"], { n: 1, list: ["x"] });
    expect(await kv.get(["a", "b"])).toEqual({ n: 1, list: ["x"] });
    await kv.set(["a", "b"], "again");
    expect(await kv.get(["a", "b"])).toBe("again");
    await kv.delete(["a", "b"]);
    expect(await kv.get(["a", "b"])).toBeUndefined();
  });

  it("hides entries once their TTL has passed, and purges them", async () => {
    await kv.set(["cache", "x"], 1, { ttl: seconds(60) });
    await kv.set(["cache", "y"], 2);
    clock.advance(59_000);
    expect(await kv.get(["cache", "x"])).toBe(1);
    clock.advance(2_000);
    expect(await kv.get(["cache", "x"])).toBeUndefined();
    expect(await kv.purge()).toBe(1);
    expect(await kv.get(["cache", "y"])).toBe(2);
  });

  it("compares and swaps: only from the expected value, and from absent (or expired) when expected is undefined", async () => {
    expect(await kv.cas(["lock"], undefined, "first")).toBe(true);
    expect(await kv.cas(["lock"], undefined, "second")).toBe(false);
    expect(await kv.cas(["lock"], "wrong", "third")).toBe(false);
    expect(await kv.cas(["lock"], "first", "fourth")).toBe(true);
    expect(await kv.get(["lock"])).toBe("fourth");
    await kv.set(["lease"], "old", { ttl: seconds(1) });
    clock.advance(2_000);
    expect(await kv.cas(["lease"], undefined, "new")).toBe(true);
    expect(await kv.get(["lease"])).toBe("new");
  });

  it("lists by key prefix, not by string prefix of a key part", async () => {
    await kv.set(["p", "a"], 1);
    await kv.set(["p", "b", "c"], 2);
    await kv.set(["pp", "a"], 3);
    await kv.set(["p"], 0);
    const listed: [readonly string[], unknown][] = [];
    for await (const entry of kv.list(["p"])) listed.push([entry.key, entry.value]);
    expect(listed).toEqual([
      [["p"], 0],
      [["p", "a"], 1],
      [["p", "b", "c"], 2],
    ]);
    let all = 0;
    for await (const _ of kv.list()) all++;
    expect(all).toBe(4);
  });

  it("keeps public keys and signature specs in memory: its own writes, deletes and swaps at once, another process's within a minute", async () => {
    const other = new SqlKvStore(storage, clock);
    const spec = ["_fedify", "httpMessageSignaturesSpec", "https://remote.example"] as const;
    await kv.set(spec, "rfc9421");
    expect(await kv.get(spec)).toBe("rfc9421");
    // Another process of the server learns the remote server wants the older spec.
    await other.set(spec, "draft-cavage-http-signatures-12");
    expect(await kv.get(spec)).toBe("rfc9421");
    clock.advance(60_001);
    expect(await kv.get(spec)).toBe("draft-cavage-http-signatures-12");
    // Writing the value it holds changes nothing; writing another value replaces both copies.
    await kv.set(spec, "draft-cavage-http-signatures-12");
    await kv.set(spec, "rfc9421");
    expect(await other.get(spec)).toBe("rfc9421");
    expect(await kv.get(spec)).toBe("rfc9421");

    const key = ["_fedify", "publicKey", "https://remote.example/users/a#main-key"] as const;
    await kv.set(key, { id: "old" });
    expect(await kv.get(key)).toEqual({ id: "old" });
    expect(await kv.cas(key, { id: "old" }, { id: "rotated" })).toBe(true);
    expect(await kv.get(key)).toEqual({ id: "rotated" });
    await kv.delete(key);
    expect(await kv.get(key)).toBeUndefined();
    // An entry with a TTL (a key that could not be fetched) expires on time, memory or not.
    await kv.set(key, null, { ttl: seconds(30) });
    expect(await kv.get(key)).toBeNull();
    clock.advance(30_001);
    expect(await kv.get(key)).toBeUndefined();
    // A value read from the database is returned as a copy each time.
    await other.set(key, { id: "k", list: [1] });
    clock.advance(60_001);
    const first = await kv.get<{ list: number[] }>(key);
    first?.list.push(2);
    expect(await kv.get(key)).toEqual({ id: "k", list: [1] });
  });
});
