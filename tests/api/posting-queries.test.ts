/**
 * What one post costs the database: the request and every reaction to it
 * (home fan-out to ten local followers, notifications, streams, tags, the
 * hand-off to federation), counted on every statement sent, those in the
 * post's transaction included. Posting is the busiest write; each reaction
 * used to read the post back, and the bound keeps such reads from returning.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StatementCounter, countedStorage } from "../support/statement-counter.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * Statements of one public post with a hashtag and no mentions, its reactions included (40 before the reactions were
 * handed the post, 24 after; 13 once the answer was rendered from the rows written and federation found the audience
 * from the event; 17 once the post's reactions were recorded as pending and its full-text entry written with them,
 * statements a batch of posts finishing together shares; 16 before fan-out and the notifications shared one read of
 * the author's local followers).
 */
const STATEMENTS_PER_POST = 15;

describeOnEngines("statements per post", (engine) => {
  const counter = new StatementCounter();
  let kith: TestKith;
  let author: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith({ wrapStorage: (storage) => countedStorage(storage, counter) });
    author = await kith.createUser("pq_author");
    for (let i = 0; i < 10; i++) {
      const reader = await kith.createUser(`pq_reader${i}`);
      const response = await kith.request("POST", `/api/v1/accounts/${author.account.id}/follow`, { token: reader.token });
      expect(response.status).toBe(200);
    }
  });
  afterAll(() => kith.close());

  /** Statements of one post by the author (the request waits for its reactions), and the post's id. */
  async function statementsOfPost(text: string): Promise<{ statements: number; id: string }> {
    counter.count = 0;
    const response = await kith.request("POST", "/api/v1/statuses", { token: author.token, json: { status: text, visibility: "public" } });
    const statements = counter.count;
    expect(response.status).toBe(200);
    return { statements, id: ((await response.json()) as { id: string }).id };
  }

  it("a post with fan-out to ten followers stays within its statements, and reaches every home feed", async () => {
    // Two posts warm what the process keeps: a cache kept across processes (the accepted relays) keeps only what it
    // reads once it listens for changes, which its first read starts when the instance has not been started.
    await statementsOfPost("warming up #pq");
    await statementsOfPost("warming up again #pq");
    const { statements, id } = await statementsOfPost("a post #pq");
    expect(statements).toBeLessThanOrEqual(STATEMENTS_PER_POST);
    const homes = await kith.storage.db.selectFrom("home_feed").select("account_id").where("status_id", "=", id).execute();
    expect(homes).toHaveLength(11);
  });

  it("the same number for every post: nothing grows with the posts made before", async () => {
    const first = await statementsOfPost("one more #pq");
    const second = await statementsOfPost("and another #pq");
    expect(second.statements).toBe(first.statements);
  });
});
