/**
 * Posts, boosts and favourites sent at the same moment are committed
 * together (`BatchedWrites`): a commit costs more than the rows it writes, and
 * was the largest part of a post's time in SQLite. One that fails in its
 * transaction fails alone, with its own error, and leaves nothing written.
 */
import type { Storage } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type EngineName, describeOnEngines } from "../support/engines.js";

const AT_ONCE = 8;

/** `inner`, counting the transactions begun on it. */
function countingTransactions(inner: Storage, counted: { transactions: number }): Storage {
  const transaction: Storage["transaction"] = (work) => {
    counted.transactions++;
    return inner.transaction(work);
  };
  return new Proxy(inner, {
    get(target, property) {
      if (property === "transaction") return transaction;
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Fewer transactions than these for `AT_ONCE` posts, and for five favourites with five boosts; null: not counted. */
interface TransactionBounds {
  readonly posts: number;
  readonly reactions: number;
}

/**
 * The bounds of each engine. SQLite: one transaction for each post and a few for the reactions before (9 for 8
 * posts); 2 together now. One for each boost or favourite before (12 for 10 of them, with the boosts' reactions); 3
 * together now. PostgreSQL: the reads before each transaction are answered over the network, so how many arrive in
 * the same turn depends on the network's timing: the batches' count is SQLite's to show, what is stored is checked on
 * both.
 */
const BOUNDS: Record<EngineName, TransactionBounds | null> = {
  sqlite: { posts: AT_ONCE / 2, reactions: 5 },
  postgres: null,
};

describeOnEngines("writes of the same moment share a commit", (engine) => {
  const bounds = BOUNDS[engine.name];
  const counted = { transactions: 0 };
  let kith: TestKith;
  let author: TestUser;
  let reader: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith({ wrapStorage: (storage) => countingTransactions(storage, counted) });
    author = await kith.createUser("pc_author");
    reader = await kith.createUser("pc_reader");
  });
  afterAll(async () => {
    await kith?.close();
  });

  const post = (user: TestUser, json: Record<string, unknown>) => kith.request("POST", "/api/v1/statuses", { token: user.token, json });
  const postTexts = async () =>
    (await kith.storage.db.selectFrom("statuses").select("text").where("account_id", "=", author.account.id).execute()).map(
      (row) => row.text,
    );

  it("posts sent at once take fewer transactions than posts, and each is stored with its counter", async () => {
    const before = counted.transactions;
    const responses = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => post(author, { status: `at once ${i}` })));
    expect(responses.map((response) => response.status)).toEqual(Array(AT_ONCE).fill(200));
    if (bounds) expect(counted.transactions - before).toBeLessThan(bounds.posts);
    expect((await postTexts()).filter((text) => text.startsWith("at once")).sort()).toEqual(
      Array.from({ length: AT_ONCE }, (_, i) => `at once ${i}`).sort(),
    );
    const account = await kith.storage.db
      .selectFrom("accounts")
      .select("statuses_count")
      .where("id", "=", author.account.id)
      .executeTakeFirstOrThrow();
    expect(Number(account.statuses_count)).toBe(AT_ONCE);
  });

  it("a post refused in its transaction fails alone: the others are stored, it leaves nothing", async () => {
    const sent = [
      post(author, { status: "kept one" }),
      post(author, { status: "refused", media_ids: ["md_00000000000000000000000000"] }),
      post(author, { status: "kept two" }),
    ];
    const [first, refused, second] = (await Promise.all(sent)) as [Response, Response, Response];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toBeTruthy();
    const texts = await postTexts();
    expect(texts).toContain("kept one");
    expect(texts).toContain("kept two");
    expect(texts).not.toContain("refused");
    const pending = await kith.storage.db.selectFrom("pending_post_reactions").select("status_id").execute();
    const stored = new Set((await kith.storage.db.selectFrom("statuses").select("id").execute()).map((row) => row.id));
    expect(pending.filter((row) => !stored.has(row.status_id))).toEqual([]);
  });

  it("favourites and boosts sent at once are each stored once, with the post's counters in step", async () => {
    const target = (await (await post(author, { status: "to react to" })).json()) as { id: string };
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => kith.createUser(`pc_fan${i}`)));
    const before = counted.transactions;
    const responses = await Promise.all(
      [reader, ...others].flatMap((user) => [
        kith.request("POST", `/api/v1/statuses/${target.id}/favourite`, { token: user.token }),
        kith.request("POST", `/api/v1/statuses/${target.id}/reblog`, { token: user.token }),
      ]),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    if (bounds) expect(counted.transactions - before).toBeLessThan(bounds.reactions);
    const row = await kith.storage.db
      .selectFrom("statuses")
      .select(["favourites_count", "reblogs_count"])
      .where("id", "=", target.id)
      .executeTakeFirstOrThrow();
    expect([Number(row.favourites_count), Number(row.reblogs_count)]).toEqual([5, 5]);
    const undone = await Promise.all(
      [reader, ...others].map((user) => kith.request("POST", `/api/v1/statuses/${target.id}/unfavourite`, { token: user.token })),
    );
    expect(undone.map((response) => response.status)).toEqual(Array(5).fill(200));
    const after = await kith.storage.db
      .selectFrom("statuses")
      .select("favourites_count")
      .where("id", "=", target.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.favourites_count)).toBe(0);
  });
});
