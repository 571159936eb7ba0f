/**
 * Follows between two Kith server processes over HTTPS: a Follow of an open
 * account is accepted (both sides record the follow), a Follow of a locked
 * account stays a request on both sides, a Follow from a domain the account
 * blocks is rejected.
 */
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Federation, type TestInstance, startFederation } from "../support/federation-harness.js";

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function database(instance: TestInstance): Storage {
  return createSqliteStorage({ filename: join(instance.dataDir, "kith.sqlite") });
}

async function totalItems(instance: TestInstance, path: string): Promise<number> {
  const response = await instance.request("GET", path, { headers: { accept: "application/activity+json" } });
  return Number((response.body as { totalItems?: number }).totalItems ?? -1);
}

describe("follows between two server processes", () => {
  let net: Federation;
  let a: TestInstance;
  let b: TestInstance;
  beforeAll(async () => {
    net = await startFederation(2);
    [a, b] = net.instances as [TestInstance, TestInstance];
    await Promise.all([a.createAccount("alice"), b.createAccount("bob"), b.createAccount("carol")]);
  }, 120_000);
  afterAll(async () => {
    await net?.stop();
  });

  it("follows an open account: B records the follower and answers Accept, A records the follow", async () => {
    await a.runScript("federation-follow.ts", ["alice", `@bob@${b.host}`]);
    expect(
      await eventually(
        () => totalItems(b, "/users/bob/followers"),
        (n) => n === 1,
      ),
    ).toBe(1);
    const following = await eventually(
      () => totalItems(a, "/users/alice/following"),
      (n) => n === 1,
    );
    expect(following).toBe(1);
    const followers = await b.request("GET", "/users/bob/followers?cursor=", { headers: { accept: "application/activity+json" } });
    expect((followers.body as { orderedItems?: unknown }).orderedItems).toEqual([`${a.origin}/users/alice`]);
    const storage = database(a);
    try {
      const requests = await storage.db.selectFrom("follow_requests").selectAll().execute();
      expect(requests).toEqual([]);
    } finally {
      await storage.close();
    }
  }, 90_000);

  it("asks a locked account: the follow stays a request on both sides", async () => {
    const bStorage = database(b);
    try {
      await sql`update accounts set locked = ${1} where username = 'carol'`.execute(bStorage.db);
      await a.runScript("federation-follow.ts", ["alice", `@carol@${b.host}`]);
      const requests = await eventually(
        () =>
          bStorage.db
            .selectFrom("follow_requests")
            .innerJoin("accounts", "accounts.id", "follow_requests.account_id")
            .select(["accounts.uri"])
            .execute(),
        (rows) => rows.length > 0,
      );
      expect(requests).toEqual([{ uri: `${a.origin}/users/alice` }]);
    } finally {
      await bStorage.close();
    }
    expect(await totalItems(b, "/users/carol/followers")).toBe(0);
    expect(await totalItems(a, "/users/alice/following")).toBe(1);
  }, 90_000);

  it("rejects a follow from a domain the account blocks: no follower on B, no follow on A", async () => {
    await b.createAccount("dave");
    const bStorage = database(b);
    try {
      const dave = await bStorage.db
        .selectFrom("accounts")
        .select("id")
        .where("username", "=", "dave")
        .where("domain", "is", null)
        .executeTakeFirstOrThrow();
      await bStorage.db
        .insertInto("account_domain_blocks")
        .values({ id: "ub_0000000000000000000000fed1", account_id: dave.id, domain: a.host, created_at: new Date().toISOString() })
        .execute();
    } finally {
      await bStorage.close();
    }
    await a.runScript("federation-follow.ts", ["alice", `@dave@${b.host}`]);
    const aStorage = database(a);
    try {
      const pending = await eventually(
        () =>
          aStorage.db
            .selectFrom("follow_requests")
            .innerJoin("accounts", "accounts.id", "follow_requests.target_account_id")
            .select("accounts.username")
            .where("accounts.username", "=", "dave")
            .execute(),
        (rows) => rows.length === 0,
      );
      expect(pending).toEqual([]);
    } finally {
      await aStorage.close();
    }
    expect(await totalItems(b, "/users/dave/followers")).toBe(0);
    expect(await totalItems(a, "/users/alice/following")).toBe(1);
  }, 90_000);
});
